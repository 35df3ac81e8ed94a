import IPAddresses
import Testing

@Suite("Address ranges")
struct AddressRangeTests {
    @Test("CIDR blocks contain their addresses and nothing else, IPv4 and IPv6")
    func contains() throws {
        let private10 = try #require(AddressRange("10.0.0.0/8"))
        #expect(private10.contains("10.255.3.4"))
        #expect(!private10.contains("11.0.0.1"))
        #expect(private10.contains("::ffff:10.1.2.3"), "IPv4-mapped, as a dual-stack socket reports it")
        #expect(!private10.contains("not-an-address") && !private10.contains(""))
        let odd = try #require(AddressRange("192.168.1.77/27"))
        #expect(odd.description == "192.168.1.64/27")
        #expect(odd.contains("192.168.1.95") && !odd.contains("192.168.1.96"))
        let one = try #require(AddressRange("203.0.113.9"))
        #expect(one.contains("203.0.113.9") && !one.contains("203.0.113.10"))
        let v6 = try #require(AddressRange("fd00::/8"))
        #expect(v6.contains("fd12:3456::1") && !v6.contains("fe80::1") && !v6.contains("10.0.0.1"))
        #expect(try #require(AddressRange("0.0.0.0/0")).contains("8.8.8.8"))
    }

    @Test("what is not an address or a fitting prefix is refused", arguments: [
        "", "10.0.0.0/", "10.0.0.0/33", "fd00::/129", "10.0.0.0/-1", "10.0.0/8", "proxy.internal", "10.0.0.0/8/8",
    ])
    func refused(_ text: String) {
        #expect(AddressRange(text) == nil)
    }
}
