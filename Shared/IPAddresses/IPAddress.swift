#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as its bytes, parsed from text or from a socket address.
///
/// An IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) keeps its 16 bytes and its spelling, but ranges and
/// ``specialUse`` judge it as the IPv4 address it maps.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// Parses IPv4 dotted-quad or IPv6 text; nil for anything else (host names, prefixes, zone IDs).
    public init?(_ text: String) {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, text, &ipv4) == 1 {
            bytes = withUnsafeBytes(of: ipv4) { Array($0) }
            return
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, text, &ipv6) == 1 else { return nil }
        bytes = withUnsafeBytes(of: ipv6) { Array($0) }
    }

    /// Takes 4 (IPv4) or 16 (IPv6) bytes in network order; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Reads the address of a `sockaddr_in` or `sockaddr_in6` given as its bytes (the port and scope are
    /// ignored); nil for another family or too few bytes.
    public init?(socketAddress: [UInt8]) {
        let parsed = socketAddress.withUnsafeBytes { raw -> [UInt8]? in
            guard raw.count >= MemoryLayout<sockaddr>.size else { return nil }
            switch Int32(raw.loadUnaligned(as: sockaddr.self).sa_family) {
            case AF_INET where raw.count >= MemoryLayout<sockaddr_in>.size:
                return withUnsafeBytes(of: raw.loadUnaligned(as: sockaddr_in.self).sin_addr) { Array($0) }
            case AF_INET6 where raw.count >= MemoryLayout<sockaddr_in6>.size:
                return withUnsafeBytes(of: raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr) { Array($0) }
            default:
                return nil
            }
        }
        guard let parsed else { return nil }
        bytes = parsed
    }

    /// The 4 bytes of an IPv4-mapped IPv6 address (`::ffff:0:0/96`), otherwise the bytes as they are.
    var unmappedBytes: [UInt8] {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else {
            return bytes
        }
        return Array(bytes[12...])
    }

    /// The address in its usual text form (`10.0.0.1`, `fd00:ec2::254`, `::ffff:127.0.0.1`).
    public var description: String {
        Self.text(of: bytes)
    }

    /// The text form of 4 or 16 address bytes.
    static func text(of bytes: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
