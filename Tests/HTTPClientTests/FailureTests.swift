import HTTPClient
import Testing

@Suite("Failures map to typed errors")
struct FailureTests {
    @Test("A request slower than its timeout fails quickly with .timeout")
    func timeout() async throws {
        try await withServerAndClient { server, client in
            let start = ContinuousClock.now
            let error = await #expect(throws: HTTPClientError.timeout) {
                try await client.execute(HTTPClientRequest(url: server.url("/slow?seconds=20"), timeout: .milliseconds(200)))
            }
            #expect(error?.isTimeout == true)
            // Far sooner than the 20 s the server would take (a bound a loaded machine cannot break).
            #expect(seconds(since: start) < 10)
        }
    }

    @Test("A refused connection fails with .connectionFailed")
    func connectionRefused() async throws {
        try await withClient { client in
            let error = await #expect(throws: HTTPClientError.connectionFailed) {
                try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:1/echo"))
            }
            #expect(error?.isConnectionFailure == true)
            #expect(error?.isTimeout == false)
        }
    }

    @Test("TLS is verified: a self-signed certificate fails with .connectionFailed")
    func tlsVerified() async throws {
        try await withServerAndClient(tls: true) { server, client in
            let error = await #expect(throws: HTTPClientError.connectionFailed) {
                try await client.execute(HTTPClientRequest(url: server.url("/echo", scheme: "https")))
            }
            #expect(error?.curlCode == 60)  // CURLE_PEER_FAILED_VERIFICATION
        }
    }

    @Test("HTTPS to a plain HTTP server fails with .connectionFailed")
    func tlsToPlainServer() async throws {
        try await withServerAndClient { server, client in
            await #expect(throws: HTTPClientError.connectionFailed) {
                try await client.execute(HTTPClientRequest(url: server.url("/echo", scheme: "https")))
            }
        }
    }

    @Test("A response over maxResponseSize fails with .responseTooLarge", arguments: ["", "&chunked=1"])
    func responseTooLarge(encoding: String) async throws {
        try await withServerAndClient(.init(maxResponseSize: 100_000)) { server, client in
            await #expect(throws: HTTPClientError.responseTooLarge) {
                try await client.execute(HTTPClientRequest(url: server.url("/big?size=500000\(encoding)")))
            }
            let fits = try await client.execute(HTTPClientRequest(url: server.url("/big?size=90000\(encoding)")))
            #expect(fits.body.count == 90_000)
        }
    }

    @Test("Schemes other than http and https, and malformed URLs, fail with .invalidURL",
          arguments: ["ftp://127.0.0.1/file", "file:///etc/passwd", "http://exa mple.com/", ""])
    func invalidURL(url: String) async throws {
        try await withClient { client in
            await #expect(throws: HTTPClientError.invalidURL) {
                try await client.execute(HTTPClientRequest(url: url))
            }
        }
    }

    @Test("Line breaks in headers and bad methods fail with .invalidRequest before anything is sent")
    func invalidRequest() async throws {
        try await withClient { client in
            await #expect(throws: HTTPClientError.invalidRequest) {
                try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:1/", headers: [("X-A", "1\r\nX-Injected: 2")]))
            }
            await #expect(throws: HTTPClientError.invalidRequest) {
                try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:1/", headers: [("Bad Name", "1")]))
            }
            await #expect(throws: HTTPClientError.invalidRequest) {
                try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:1/", method: "GET /x"))
            }
        }
    }

    @Test("Error descriptions carry libcurl's reason but never the body or auth headers")
    func descriptionHasNoSecrets() async throws {
        try await withClient { client in
            let error = await #expect(throws: HTTPClientError.self) {
                try await client.execute(HTTPClientRequest(
                    url: "http://127.0.0.1:1/token", method: "POST",
                    headers: [("Authorization", "Bearer secret-token-123")], body: Array("client_secret=s3cr3t".utf8)))
            }
            let description = try #require(error).description
            #expect(description.contains("connection failed"))
            #expect(description.contains("curl 7"))
            #expect(!description.contains("secret"))
            #expect(!description.contains("s3cr3t"))
        }
    }
}
