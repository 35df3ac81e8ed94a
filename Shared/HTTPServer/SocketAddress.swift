#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 socket address: parsed from the configured host to bind, formatted from a client's address.
struct SocketAddress {
    private var storage = sockaddr_storage()
    /// True for an IPv6 address.
    let isIPv6: Bool

    /// Parses `host` (dotted IPv4 or IPv6 text) with `port`; nil when `host` is neither.
    init?(host: String, port: Int) {
        var ipv4 = sockaddr_in()
        if inet_pton(AF_INET, host, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = in_port_t(UInt16(port)).bigEndian
            isIPv6 = false
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: ipv4, as: sockaddr_in.self) }
            return
        }
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = in_port_t(UInt16(port)).bigEndian
            isIPv6 = true
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: ipv6, as: sockaddr_in6.self) }
            return
        }
        return nil
    }

    /// Calls `body` with a `sockaddr` pointer valid for the duration of the call.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>) throws -> Result) rethrows -> Result {
        try withUnsafeBytes(of: storage) { bytes in
            try body(bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self))
        }
    }

    /// The IP address of `address` as text, or "" for a family other than IPv4 and IPv6.
    static func text(of address: UnsafePointer<sockaddr>) -> String {
        // INET6_ADDRSTRLEN (46) covers both families.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 48) { buffer -> String in
            let raw = UnsafeRawPointer(address)
            let written: UnsafePointer<CChar>?
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                written = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                    withUnsafePointer(to: ipv4.pointee.sin_addr) {
                        inet_ntop(AF_INET, $0, buffer.baseAddress, socklen_t(buffer.count))
                    }
                }
            case AF_INET6:
                written = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                    withUnsafePointer(to: ipv6.pointee.sin6_addr) {
                        inet_ntop(AF_INET6, $0, buffer.baseAddress, socklen_t(buffer.count))
                    }
                }
            default:
                written = nil
            }
            guard let written else { return "" }
            return String(cString: written)
        }
    }
}
