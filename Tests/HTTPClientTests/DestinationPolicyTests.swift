import HTTPClient
import Testing

/// Only loopback is ever connected to here: the refusals happen before a socket is opened.
@Suite("The destination policy")
struct DestinationPolicyTests {
    @Test("Under .publicOnly a loopback address is refused, naming the address, though a server listens there",
          arguments: [("127.0.0.1", "127.0.0.1 is loopback"), ("[::1]", "::1 is loopback")])
    func loopbackAddressRefused(host: String, reason: String) async throws {
        try await withServerAndClient(.init(destinations: .publicOnly)) { server, client in
            let error = await #expect(throws: HTTPClientError.destinationRefused) {
                try await client.execute(HTTPClientRequest(url: "http://\(host):\(server.port)/echo"))
            }
            #expect(error?.detail == reason)
            #expect(error?.description == "HTTPClientError: destination refused: \(reason)")
            #expect(error?.isConnectionFailure == false)
        }
    }

    @Test("Under .publicOnly a host name that resolves to loopback is refused: the check is on the address connected to")
    func hostNameResolvingToLoopbackRefused() async throws {
        try await withServerAndClient(.init(destinations: .publicOnly)) { server, client in
            let error = await #expect(throws: HTTPClientError.destinationRefused) {
                try await client.execute(HTTPClientRequest(url: "http://localhost:\(server.port)/echo"))
            }
            let detail = try #require(error?.detail)
            #expect(detail.contains("127.0.0.1 is loopback"), "\(detail)")
        }
    }

    @Test("Under .publicOnly HTTPS is refused the same way, before any handshake")
    func httpsRefused() async throws {
        try await withServerAndClient(tls: true, .init(destinations: .publicOnly)) { server, client in
            let error = await #expect(throws: HTTPClientError.destinationRefused) {
                try await client.execute(HTTPClientRequest(url: server.url("/echo", scheme: "https")))
            }
            #expect(error?.detail == "127.0.0.1 is loopback")
        }
    }

    @Test(".any, the default, connects to loopback as before")
    func anyConnectsToLoopback() async throws {
        #expect(HTTPClient.Configuration().destinations == .any)
        try await withServerAndClient(.init(destinations: .any)) { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/echo")))
            #expect(response.status == 200)
            let viaName = try await client.execute(HTTPClientRequest(url: "http://localhost:\(server.port)/echo"))
            #expect(viaName.status == 200)
        }
    }

    @Test("A refused request leaves the client working, and a refused address is refused again on the next request")
    func refusalIsPerRequest() async throws {
        try await withServerAndClient(.init(destinations: .publicOnly)) { server, client in
            for _ in 0..<3 {
                await #expect(throws: HTTPClientError.destinationRefused) {
                    try await client.execute(HTTPClientRequest(url: server.url("/echo")))
                }
            }
        }
    }
}
