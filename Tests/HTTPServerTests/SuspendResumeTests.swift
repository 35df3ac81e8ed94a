import Collections
import HTTPServer
import HTTPTesting
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Slow handlers are suspended, not given a thread")
struct SuspendResumeTests {
    @Test("200 concurrent handlers sleeping 50 ms finish in far less than 200 × 50 ms")
    func concurrentSlowHandlers() async throws {
        let running = Mutex((now: 0, peak: 0))
        try await withServer(testConfiguration(), handler: { request in
            running.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
            try? await Task.sleep(for: .milliseconds(50))
            running.withLock { $0.now -= 1 }
            return HTTPResponse(status: 200, body: Array(request.path.utf8))
        }) { server in
            let port = server.port
            let clock = ContinuousClock()
            let start = clock.now
            let bodies = try await BlockingCall.run {
                // All 200 requests go out before any answer is read, each on its own connection.
                let connections = try (0..<200).map { index in
                    let connection = try RawHTTPConnection(port: port)
                    try connection.send("GET /\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
                    return connection
                }
                return try connections.map { String(decoding: try $0.readResponse().body, as: UTF8.self) }
            }
            let elapsed = clock.now - start
            #expect(bodies == (0..<200).map { "/\($0)" })
            // One at a time would take 10 s. The overlap count below is the direct proof of
            // suspend/resume; this bound only says "not serial", even on a loaded machine.
            #expect(elapsed < .seconds(9), "took \(elapsed)")
            #expect(running.withLock { $0.peak } >= 50, "handlers did not overlap")
        }
    }

    @Test("A client that disconnects while its handler runs leaves the server serving")
    func clientDisconnectsMidHandler() async throws {
        let finished = Mutex(0)
        try await withServer(testConfiguration(), handler: { request in
            if request.path == "/slow" {
                try? await Task.sleep(for: .milliseconds(200))
            }
            finished.withLock { $0 += 1 }
            return HTTPResponse(status: 200, body: [UInt8](repeating: 7, count: 100_000))
        }) { server in
            let port = server.port
            try await BlockingCall.run {
                for _ in 0..<20 {
                    let connection = try RawHTTPConnection(port: port)
                    try connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
                    // The connection closes (deinit) while the handler sleeps.
                }
            }
            // Every abandoned handler still runs to its end (waiting for that, not for a fixed time,
            // keeps the test honest on a loaded machine).
            let deadline = ContinuousClock.now + .seconds(20)
            while finished.withLock({ $0 }) < 20, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(finished.withLock { $0 } == 20)
            let response = try await BlockingCall.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.body.count == 100_000)
        }
    }
}
