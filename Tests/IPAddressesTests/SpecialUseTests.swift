import IPAddresses
import Testing

@Suite("Which addresses are public destinations")
struct SpecialUseTests {
    @Test("non-public IPv4 addresses are named for what they are", arguments: [
        ("10.0.0.1", IPAddress.SpecialUse.private), ("10.255.255.255", .private),
        ("172.16.0.1", .private), ("172.31.255.254", .private),
        ("192.168.0.1", .private), ("192.168.255.255", .private),
        ("100.64.0.1", .sharedAddressSpace), ("100.127.255.254", .sharedAddressSpace),
        ("127.0.0.1", .loopback), ("127.1.2.3", .loopback),
        ("169.254.169.254", .linkLocal), ("169.254.0.1", .linkLocal),
        ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast),
        ("255.255.255.255", .broadcast), ("240.0.0.1", .reserved), ("192.0.0.170", .reserved), ("192.88.99.1", .reserved),
        ("192.0.2.1", .documentation), ("198.51.100.7", .documentation), ("203.0.113.9", .documentation),
        ("198.18.0.1", .benchmarking), ("198.19.255.255", .benchmarking),
    ])
    func nonPublicIPv4(address: String, use: IPAddress.SpecialUse) throws {
        let parsed = try #require(IPAddress(address))
        #expect(parsed.specialUse == use)
        #expect(!parsed.isPublic)
    }

    @Test("non-public IPv6 addresses are named for what they are, embedded IPv4 judged as IPv4", arguments: [
        ("::", IPAddress.SpecialUse.unspecified), ("::1", .loopback),
        ("::ffff:127.0.0.1", .loopback), ("::ffff:10.1.2.3", .private), ("::ffff:169.254.169.254", .linkLocal),
        ("64:ff9b::a00:1", .private), ("64:ff9b::7f00:1", .loopback), ("64:ff9b::a9fe:a9fe", .linkLocal),
        ("2002:a00:1::1", .private), ("2002:7f00:1::", .loopback),
        ("fc00::1", .uniqueLocal), ("fd00:ec2::254", .uniqueLocal), ("fd12:3456:789a::1", .uniqueLocal),
        ("fe80::1", .linkLocal), ("febf::1", .linkLocal), ("fec0::1", .siteLocal),
        ("ff02::1", .multicast), ("ff05::1:3", .multicast),
        ("2001:db8::1", .documentation), ("3fff::1", .documentation),
        ("2001:2::1", .benchmarking), ("2001::1", .reserved), ("2001:20::1", .reserved),
        ("::7f00:1", .reserved), ("100::1", .reserved), ("64:ff9b:1::a00:1", .reserved), ("4000::1", .reserved), ("e000::1", .reserved),
    ])
    func nonPublicIPv6(address: String, use: IPAddress.SpecialUse) throws {
        let parsed = try #require(IPAddress(address))
        #expect(parsed.specialUse == use)
        #expect(!parsed.isPublic)
    }

    @Test("public addresses have no special use", arguments: [
        "8.8.8.8", "1.1.1.1", "93.184.215.14", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1",
        "169.253.255.255", "192.169.0.1", "198.17.255.255", "198.20.0.1", "223.255.255.254", "11.0.0.1", "126.255.255.255",
        "2606:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001::1", "2001:200::1",
        "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
    ])
    func publicAddresses(address: String) throws {
        let parsed = try #require(IPAddress(address))
        #expect(parsed.specialUse == nil)
        #expect(parsed.isPublic)
    }

    @Test("every block of the table is in the table: its first address is non-public")
    func tableBlocks() throws {
        #expect(AddressRange.nonPublic.count > 20)
        for (range, use) in AddressRange.nonPublic {
            let first = try #require(IPAddress(String(range.description.split(separator: "/")[0])))
            #expect(first.specialUse != nil, "\(range) (\(use)) starts with a public address")
            #expect(range.contains(first))
        }
    }

    @Test("the reasons read as words after 'is'")
    func descriptions() {
        #expect(IPAddress.SpecialUse.loopback.description == "loopback")
        #expect(IPAddress.SpecialUse.private.description == "private")
        #expect(IPAddress.SpecialUse.linkLocal.description == "link-local")
        #expect(IPAddress("fd00:ec2::254").map { "\($0) is \($0.specialUse!)" } == "fd00:ec2::254 is unique local")
        #expect(IPAddress.SpecialUse.loopback != .private)
    }
}
