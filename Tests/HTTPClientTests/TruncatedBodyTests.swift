import HTTPClient
import Testing

@Suite("Response bodies cut at maxResponseBodyBytes")
struct TruncatedBodyTests {
    @Test("A body past the limit is cut there and the response kept: status, headers, first bytes",
          arguments: ["", "&chunked=1"])
    func bigBodyTruncated(encoding: String) async throws {
        // 5 MiB, past the default 1 MiB maxResponseSize too: an announced Content-Length does not fail it early.
        try await withServerAndClient { server, client in
            let response = try await client.execute(HTTPClientRequest(
                url: server.url("/big?size=5242880\(encoding)"), maxResponseBodyBytes: 65536))
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/json")
            #expect(response.isTruncated)
            #expect(response.body.count == 65536)
            #expect(response.body.allSatisfy { $0 == UInt8(ascii: "x") })
        }
    }

    @Test("An error status with a big body keeps its status")
    func statusKept() async throws {
        try await withServerAndClient { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/status/500"), maxResponseBodyBytes: 10))
            #expect(response.status == 500)
            #expect(response.isTruncated)
            #expect(response.body == Array("{\"method\":".utf8))
        }
    }

    @Test("A body within the limit, or exactly at it, is whole and not marked truncated", arguments: [100, 65536])
    func bodyWithinLimit(size: Int) async throws {
        try await withServerAndClient { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/big?size=\(size)"), maxResponseBodyBytes: 65536))
            #expect(response.status == 200)
            #expect(!response.isTruncated)
            #expect(response.body.count == size)
        }
    }

    @Test("A limit of 0 keeps the status and headers only")
    func zeroLimit() async throws {
        try await withServerAndClient { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/big?size=1000"), maxResponseBodyBytes: 0))
            #expect(response.status == 200)
            #expect(response.isTruncated)
            #expect(response.body.isEmpty)
        }
    }

    @Test("The body is also cut where the whole response reaches maxResponseSize")
    func cutAtMaxResponseSize() async throws {
        try await withServerAndClient(.init(maxResponseSize: 100_000)) { server, client in
            let response = try await client.execute(HTTPClientRequest(url: server.url("/big?size=500000"), maxResponseBodyBytes: 1_000_000))
            #expect(response.status == 200)
            #expect(response.isTruncated)
            // maxResponseSize less the headers' bytes.
            #expect(response.body.count < 100_000 && response.body.count > 99_000)
        }
    }

    @Test("Headers past maxResponseSize still fail with .responseTooLarge")
    func headersStillFail() async throws {
        try await withServerAndClient(.init(maxResponseSize: 40)) { server, client in
            await #expect(throws: HTTPClientError.responseTooLarge) {
                try await client.execute(HTTPClientRequest(url: server.url("/big?size=1000"), maxResponseBodyBytes: 10))
            }
        }
    }

    @Test("Without a limit a big body still fails with .responseTooLarge, and responses are not marked truncated")
    func defaultUnchanged() async throws {
        try await withServerAndClient(.init(maxResponseSize: 100_000)) { server, client in
            await #expect(throws: HTTPClientError.responseTooLarge) {
                try await client.execute(HTTPClientRequest(url: server.url("/big?size=500000")))
            }
            let whole = try await client.execute(HTTPClientRequest(url: server.url("/big?size=90000")))
            #expect(!whole.isTruncated)
            #expect(whole.body.count == 90_000)
        }
    }

    @Test("The client works on after a cut transfer, on a fresh connection")
    func clientWorksAfterTruncation() async throws {
        try await withServerAndClient { server, client in
            for _ in 0..<3 {
                let cut = try await client.execute(HTTPClientRequest(url: server.url("/big?size=1000000"), maxResponseBodyBytes: 1000))
                #expect(cut.isTruncated && cut.body.count == 1000)
                let echo = try Echo(try await client.execute(HTTPClientRequest(url: server.url("/echo"))))
                #expect(echo.method == "GET")
            }
        }
    }

    @Test("A negative limit is an invalid request")
    func negativeLimit() async throws {
        try await withClient { client in
            await #expect(throws: HTTPClientError.invalidRequest) {
                try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:1/", maxResponseBodyBytes: -1))
            }
        }
    }
}
