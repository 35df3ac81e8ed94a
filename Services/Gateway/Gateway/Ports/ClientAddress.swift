import HTTPAPI
import HTTPServer
import IPAddresses

/// The address a request comes from, for the per-client rate limit.
enum ClientAddress {
    /// The connection's peer, or, when that peer is a trusted proxy, the nearest address in
    /// `X-Forwarded-For` that is not one: each proxy appends the address it received the request
    /// from, so entries to the left of the first untrusted one are whatever the client claimed.
    /// An entry that is not an address ends the walk at the hop before it.
    static func of(_ request: HTTPRequest, trusting proxies: [AddressRange]) -> String {
        let peer = request.remoteAddress
        guard !proxies.isEmpty, isTrusted(peer, proxies), let header = request.header("x-forwarded-for") else { return peer }
        var nearest = peer
        for hop in header.split(separator: ",").reversed() {
            let address = hop.trimmingASCIISpaces()
            guard AddressRange.isAddress(address) else { return nearest }
            guard isTrusted(address, proxies) else { return address }
            nearest = address
        }
        return nearest
    }

    /// The client the request counts against in the rate limit: its address (``of(_:trusting:)``), or for
    /// IPv6 the block of `ipv6PrefixLength` bits around it.
    static func client(of request: HTTPRequest, trusting proxies: [AddressRange], ipv6PrefixLength: Int) -> String {
        AddressRange.client(of: of(request, trusting: proxies), ipv6PrefixLength: ipv6PrefixLength)
    }

    private static func isTrusted(_ address: String, _ proxies: [AddressRange]) -> Bool {
        proxies.contains { $0.contains(address) }
    }
}
