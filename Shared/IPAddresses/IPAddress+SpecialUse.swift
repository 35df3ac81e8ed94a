extension IPAddress {
    /// What a non-public address is for: the reason a guard against server-side request forgery gives
    /// for refusing it ("loopback", "private", "link-local", ...).
    ///
    /// Compare with the static members (`use == .loopback`); `description` is the reason in words.
    public struct SpecialUse: Sendable, Hashable, CustomStringConvertible {
        private enum Code: Sendable, Hashable {
            case unspecified, loopback, privateUse, sharedAddressSpace, linkLocal, siteLocal, uniqueLocal, multicast,
                 broadcast, documentation, benchmarking, reserved
        }

        private let code: Code

        private init(_ code: Code) {
            self.code = code
        }

        /// "This host on this network": `0.0.0.0/8` and `::` (connecting to `0.0.0.0` reaches this host).
        public static let unspecified = SpecialUse(.unspecified)
        /// This host: `127.0.0.0/8` and `::1`.
        public static let loopback = SpecialUse(.loopback)
        /// Private networks (RFC 1918): `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`.
        public static let `private` = SpecialUse(.privateUse)
        /// Carrier-grade NAT's shared address space (RFC 6598): `100.64.0.0/10`.
        public static let sharedAddressSpace = SpecialUse(.sharedAddressSpace)
        /// One link only: `169.254.0.0/16` (where cloud metadata services listen) and `fe80::/10`.
        public static let linkLocal = SpecialUse(.linkLocal)
        /// IPv6 site-local, deprecated but still routable inside a site: `fec0::/10`.
        public static let siteLocal = SpecialUse(.siteLocal)
        /// IPv6 unique local addresses, the private networks of IPv6: `fc00::/7` (`fd00:ec2::254` is AWS's metadata service).
        public static let uniqueLocal = SpecialUse(.uniqueLocal)
        /// Multicast: `224.0.0.0/4` and `ff00::/8`.
        public static let multicast = SpecialUse(.multicast)
        /// The limited broadcast address `255.255.255.255`.
        public static let broadcast = SpecialUse(.broadcast)
        /// Reserved for documentation: `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`, `3fff::/20`.
        public static let documentation = SpecialUse(.documentation)
        /// Reserved for benchmarking: `198.18.0.0/15` and `2001:2::/48`.
        public static let benchmarking = SpecialUse(.benchmarking)
        /// Reserved or assigned to protocols, not to hosts on the internet: `240.0.0.0/4`, `192.0.0.0/24`,
        /// `2001::/23`, and IPv6 outside global unicast `2000::/3`.
        public static let reserved = SpecialUse(.reserved)

        /// The reason in words, to follow "is": "loopback", "private", "link-local", ...
        public var description: String {
            switch code {
            case .unspecified: "unspecified"
            case .loopback: "loopback"
            case .privateUse: "private"
            case .sharedAddressSpace: "shared address space (carrier-grade NAT)"
            case .linkLocal: "link-local"
            case .siteLocal: "site-local"
            case .uniqueLocal: "unique local"
            case .multicast: "multicast"
            case .broadcast: "broadcast"
            case .documentation: "reserved for documentation"
            case .benchmarking: "reserved for benchmarking"
            case .reserved: "reserved"
            }
        }
    }

    /// Why this address is not a public destination on the internet, or nil when it is a public unicast address.
    ///
    /// An IPv4 address carried in IPv6 is judged as that IPv4 address: IPv4-mapped (`::ffff:0:0/96`), the
    /// NAT64 well-known prefix (`64:ff9b::/96`) and 6to4 (`2002::/16`); so `64:ff9b::a00:1` (10.0.0.1) is private
    /// and `::ffff:8.8.8.8` is public. Anything else is looked up in ``AddressRange/nonPublic``.
    public var specialUse: SpecialUse? {
        if let embedded = embeddedIPv4 {
            return embedded.specialUse
        }
        return AddressRange.nonPublic.first { $0.range.contains(self) }?.use
    }

    /// True when the address is a public unicast address (``specialUse`` is nil).
    public var isPublic: Bool {
        specialUse == nil
    }

    /// The IPv4 address an IPv6 address carries and is translated to: IPv4-mapped, NAT64 well-known prefix, 6to4.
    private var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        if unmappedBytes.count == 4 {
            return IPAddress(bytes: unmappedBytes)
        }
        if bytes[0..<12] == Self.nat64Prefix[...] {
            return IPAddress(bytes: Array(bytes[12...]))
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 {
            return IPAddress(bytes: Array(bytes[2..<6]))
        }
        return nil
    }

    /// `64:ff9b::/96` (RFC 6052), the prefix a NAT64 gateway translates to the IPv4 address in the last 4 bytes.
    private static let nat64Prefix: [UInt8] = [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
}

extension AddressRange {
    /// The blocks that are not public destinations, each with what it is for, the more specific first (the
    /// first that contains an address names its use). From IANA's IPv4 and IPv6 special-purpose address
    /// registries (RFC 6890 and later), plus all of IPv6 outside global unicast (`2000::/3`), which is
    /// unassigned or for local use. IPv4 addresses embedded in IPv6 are judged by ``IPAddress/specialUse``
    /// before this table is read.
    public static let nonPublic: [(range: AddressRange, use: IPAddress.SpecialUse)] = nonPublicBlocks.map { text, use in
        (AddressRange(text)!, use)
    }

    private static let nonPublicBlocks: [(String, IPAddress.SpecialUse)] = [
        // IPv4
        ("0.0.0.0/8", .unspecified),
        ("10.0.0.0/8", .private),
        ("100.64.0.0/10", .sharedAddressSpace),
        ("127.0.0.0/8", .loopback),
        ("169.254.0.0/16", .linkLocal),
        ("172.16.0.0/12", .private),
        ("192.0.0.0/24", .reserved),  // IETF protocol assignments (DS-Lite, NAT64 discovery, ...)
        ("192.0.2.0/24", .documentation),
        ("192.88.99.0/24", .reserved),  // the deprecated 6to4 relay anycast
        ("192.168.0.0/16", .private),
        ("198.18.0.0/15", .benchmarking),
        ("198.51.100.0/24", .documentation),
        ("203.0.113.0/24", .documentation),
        ("224.0.0.0/4", .multicast),
        ("255.255.255.255/32", .broadcast),
        ("240.0.0.0/4", .reserved),
        // IPv6
        ("::/128", .unspecified),
        ("::1/128", .loopback),
        ("2001:2::/48", .benchmarking),
        ("2001::/23", .reserved),  // IETF protocol assignments (Teredo, ORCHID, ...)
        ("2001:db8::/32", .documentation),
        ("3fff::/20", .documentation),
        ("fc00::/7", .uniqueLocal),
        ("fe80::/10", .linkLocal),
        ("fec0::/10", .siteLocal),
        ("ff00::/8", .multicast),
        // Outside 2000::/3: IPv4-compatible and -translated forms, discard-only 100::/64, local-use NAT64 64:ff9b:1::/48, unassigned space.
        ("::/3", .reserved),
        ("4000::/2", .reserved),
        ("8000::/1", .reserved),
    ]
}
