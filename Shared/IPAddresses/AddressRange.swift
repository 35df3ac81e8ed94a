/// A block of IP addresses in CIDR notation (`10.0.0.0/8`, `fd00::/8`, or one address), to tell
/// whether an address belongs to it. IPv4 addresses written as IPv4-mapped IPv6
/// (`::ffff:10.1.2.3`, as a dual-stack socket reports them) count as the IPv4 address.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    private let network: [UInt8]
    private let prefixLength: Int

    /// Parses `text`; nil when it is not an address, optionally with a prefix length that fits it.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.bytes(of: String(parts[0])) else { return nil }
        let bits = address.count * 8
        var length = bits
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...bits).contains(parsed) else { return nil }
            length = parsed
        }
        network = Self.masked(address, length)
        prefixLength = length
    }

    /// Whether `address` (IPv4 or IPv6 text) is in the range; false for anything that is not an address.
    public func contains(_ address: String) -> Bool {
        IPAddress(address).map(contains) ?? false
    }

    /// Whether `address` is in the range (an IPv4-mapped IPv6 address counts as its IPv4 address).
    public func contains(_ address: IPAddress) -> Bool {
        let bytes = address.unmappedBytes
        return bytes.count == network.count && Self.masked(bytes, prefixLength) == network
    }

    /// The range as `address/length`, with the host bits cleared.
    public var description: String {
        IPAddress.text(of: network) + "/\(prefixLength)"
    }

    /// The client `address` stands for when clients are counted: an IPv4 address itself (`198.51.100.7/32`,
    /// however written), an IPv6 address its block of `ipv6PrefixLength` bits (`2001:db8:1:2::/64`), since
    /// one subscriber is handed a whole block; anything that is not an address as it is.
    public static func client(of address: String, ipv6PrefixLength: Int) -> String {
        guard let bytes = bytes(of: address) else { return address }
        let length = bytes.count == 4 ? 32 : ipv6PrefixLength
        return AddressRange(network: masked(bytes, length), prefixLength: length).description
    }

    private init(network: [UInt8], prefixLength: Int) {
        self.network = network
        self.prefixLength = prefixLength
    }

    /// Whether `text` is an IPv4 or IPv6 address.
    public static func isAddress(_ text: String) -> Bool {
        bytes(of: text) != nil
    }

    /// The 4 or 16 bytes of an address; an IPv4-mapped IPv6 address gives its 4 IPv4 bytes.
    static func bytes(of text: String) -> [UInt8]? {
        IPAddress(text)?.unmappedBytes
    }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(length - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(0xFF >> kept)
        }
    }
}
