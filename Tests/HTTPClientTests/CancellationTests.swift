import HTTPClient
import Testing

@Suite("Cancelling the caller's task cancels its request")
struct CancellationTests {
    @Test("Cancelling a request in flight throws .cancelled at once, and the client goes on working")
    func cancelInFlight() async throws {
        try await withServerAndClient { server, client in
            let task = Task {
                try await client.execute(HTTPClientRequest(url: server.url("/slow?seconds=20"), timeout: .seconds(30)))
            }
            try await Task.sleep(for: .milliseconds(200))
            let start = ContinuousClock.now
            task.cancel()
            await #expect(throws: HTTPClientError.cancelled) { try await task.value }
            #expect(seconds(since: start) < 10)  // far sooner than the 20 s answer
            let after = try await client.execute(HTTPClientRequest(url: server.url("/echo")))
            #expect(after.status == 200)
        }
    }

    @Test("A task cancelled before it calls execute gets .cancelled")
    func cancelledBeforeStart() async throws {
        try await withServerAndClient { server, client in
            let task = Task {
                while !Task.isCancelled { await Task.yield() }
                return try await client.execute(HTTPClientRequest(url: server.url("/echo")))
            }
            task.cancel()
            await #expect(throws: HTTPClientError.cancelled) { try await task.value }
        }
    }

    @Test("Cancelling many requests at once leaves none hanging")
    func cancelMany() async throws {
        try await withServerAndClient { server, client in
            let tasks = (0..<50).map { _ in
                Task { try await client.execute(HTTPClientRequest(url: server.url("/slow?seconds=20"), timeout: .seconds(30))) }
            }
            try await Task.sleep(for: .milliseconds(100))
            for task in tasks { task.cancel() }
            for task in tasks {
                await #expect(throws: HTTPClientError.cancelled) { try await task.value }
            }
            #expect(try await client.execute(HTTPClientRequest(url: server.url("/echo"))).status == 200)
        }
    }
}
