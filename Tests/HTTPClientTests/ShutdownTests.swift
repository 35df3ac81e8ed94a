import HTTPClient
import Testing

@Suite("Shutdown stops the worker and fails what is pending")
struct ShutdownTests {
    @Test("Requests in flight fail with .cancelled when the client shuts down")
    func shutdownFailsPending() async throws {
        let server = try await TestServer.start()
        let client = makeClient()
        let tasks = (0..<5).map { _ in
            Task { try await client.execute(HTTPClientRequest(url: server.url("/slow?seconds=20"), timeout: .seconds(30))) }
        }
        try await Task.sleep(for: .milliseconds(200))
        let start = ContinuousClock.now
        client.shutdown()
        for task in tasks {
            await #expect(throws: HTTPClientError.cancelled) { try await task.value }
        }
        #expect(seconds(since: start) < 10)  // far sooner than the 20 s answer
    }

    @Test("After shutdown, requests fail with .cancelled and shutdown can be called again")
    func afterShutdown() async throws {
        let server = try await TestServer.start()
        let client = makeClient()
        #expect(try await client.execute(HTTPClientRequest(url: server.url("/echo"))).status == 200)
        client.shutdown()
        client.shutdown()
        await #expect(throws: HTTPClientError.cancelled) {
            try await client.execute(HTTPClientRequest(url: server.url("/echo")))
        }
    }
}
