import IPAddresses
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("IP addresses")
struct IPAddressTests {
    @Test("text parses to 4 or 16 bytes and prints back; an IPv4-mapped address keeps its IPv6 form")
    func text() throws {
        #expect(IPAddress("192.0.2.1")?.bytes == [192, 0, 2, 1])
        #expect(IPAddress("::1")?.bytes == Array(repeating: 0, count: 15) + [1])
        #expect(IPAddress("::ffff:127.0.0.1")?.description == "::ffff:127.0.0.1")
        #expect(IPAddress("FD00:EC2:0::254")?.description == "fd00:ec2::254")
        for text in ["", "localhost", "10.0.0", "10.0.0.1/8", "fe80::1%eth0", "1.2.3.4.5", " 1.2.3.4"] {
            #expect(IPAddress(text) == nil, "\(text) is not an address")
        }
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        #expect(IPAddress(bytes: [8, 8, 4, 4])?.description == "8.8.4.4")
    }

    @Test("a sockaddr_in or sockaddr_in6, as bytes, gives its address")
    func socketAddress() {
        var ipv4 = sockaddr_in()
        ipv4.sin_family = sa_family_t(AF_INET)
        ipv4.sin_port = in_port_t(8080).bigEndian
        inet_pton(AF_INET, "169.254.169.254", &ipv4.sin_addr)
        #expect(IPAddress(socketAddress: withUnsafeBytes(of: ipv4) { Array($0) })?.description == "169.254.169.254")

        var ipv6 = sockaddr_in6()
        ipv6.sin6_family = sa_family_t(AF_INET6)
        ipv6.sin6_port = in_port_t(8080).bigEndian
        inet_pton(AF_INET6, "fd00:ec2::254", &ipv6.sin6_addr)
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        #expect(IPAddress(socketAddress: bytes)?.description == "fd00:ec2::254")
        #expect(IPAddress(socketAddress: Array(bytes.prefix(20))) == nil, "too short for a sockaddr_in6")

        var unix = sockaddr_un()
        unix.sun_family = sa_family_t(AF_UNIX)
        #expect(IPAddress(socketAddress: withUnsafeBytes(of: unix) { Array($0) }) == nil, "not an IP address")
    }
}
