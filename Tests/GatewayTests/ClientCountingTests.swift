import IPAddresses
import Logging
import Testing
@testable import Gateway

/// How the rate limit counts clients: an IPv6 address by its block, and the warning that one address sends
/// most of the traffic (a proxy not in `TRUSTED_PROXIES`).
@Suite("Counting clients for the rate limit")
struct ClientCountingTests {
    @Test("an IPv6 address counts as its block; IPv4, IPv4-mapped IPv6 and non-addresses as they are")
    func blocks() {
        #expect(AddressRange.client(of: "2001:db8:1:2:aaaa:bbbb:cccc:dddd", ipv6PrefixLength: 64) == "2001:db8:1:2::/64")
        #expect(AddressRange.client(of: "2001:db8:1:2::1", ipv6PrefixLength: 64) == AddressRange.client(of: "2001:db8:1:2::ffff", ipv6PrefixLength: 64))
        #expect(AddressRange.client(of: "2001:db8:1:2::1", ipv6PrefixLength: 64) != AddressRange.client(of: "2001:db8:1:3::1", ipv6PrefixLength: 64))
        #expect(AddressRange.client(of: "2001:db8:1:2::1", ipv6PrefixLength: 128) == "2001:db8:1:2::1/128")
        #expect(AddressRange.client(of: "2001:db8:1:2::1", ipv6PrefixLength: 48) == "2001:db8:1::/48")
        #expect(AddressRange.client(of: "198.51.100.7", ipv6PrefixLength: 64) == "198.51.100.7/32")
        #expect(AddressRange.client(of: "::ffff:198.51.100.7", ipv6PrefixLength: 64) == "198.51.100.7/32")
        #expect(AddressRange.client(of: "unix", ipv6PrefixLength: 64) == "unix")
    }

    @Test("one address with most of the first requests is warned about once; many addresses are not")
    func untrustedProxy() {
        let sink = LogSink.capturing()
        let check = UntrustedProxyCheck(sample: 100, logger: Logger(label: "gateway", level: .info, sink: sink))
        for index in 0..<99 { check.observe(index % 3 == 0 ? "198.51.100.\(index)" : "10.0.0.1") }
        #expect(sink.lines.isEmpty)
        check.observe("10.0.0.1")
        #expect(check.isDone)
        #expect(sink.lines.count == 1)
        #expect(sink.lines.first?.contains("TRUSTED_PROXIES") == true)
        #expect(sink.lines.first?.contains("10.0.0.1") == true)
        for _ in 0..<200 { check.observe("10.0.0.1") }
        #expect(sink.lines.count == 1, "warned once")

        let spread = LogSink.capturing()
        let quiet = UntrustedProxyCheck(sample: 100, logger: Logger(label: "gateway", level: .info, sink: spread))
        for index in 0..<100 { quiet.observe("198.51.100.\(index % 4)") }
        #expect(quiet.isDone)
        #expect(spread.lines.isEmpty)
    }
}
