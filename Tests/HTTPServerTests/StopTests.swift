import Collections
import HTTPServer
import HTTPTesting
import Logging
import Synchronization
import Testing

@Suite("Stopping")
struct StopTests {
    private func server(_ configuration: HTTPServer.Configuration = testConfiguration(),
                        handler: @escaping HTTPServer.Handler = { _ in HTTPResponse(status: 200) }) -> HTTPServer {
        HTTPServer(configuration: configuration, logger: Logger(label: "http-test", level: .critical), handler: handler)
    }

    @Test("stop() is idempotent, also before start(), and a stopped server refuses to start again")
    func idempotent() async throws {
        let neverStarted = server()
        neverStarted.stop()
        neverStarted.stop()
        #expect(throws: HTTPServerError.stopped) { try neverStarted.start() }

        let started = server()
        try started.start()
        #expect(throws: HTTPServerError.alreadyStarted) { try started.start() }
        let port = started.port
        started.stop()
        started.stop()
        #expect(throws: HTTPServerError.stopped) { try started.start() }
        let refused = try await BlockingCall.run { () -> Bool in
            do {
                _ = try RawHTTPConnection(port: port)
                return false
            } catch {
                return true
            }
        }
        #expect(refused, "the port still accepts connections after stop()")
    }

    @Test("A stopped server is released (MHD's reference is dropped), and run() on it throws stopped")
    func releasedAfterStop() async throws {
        weak var weakServer: HTTPServer?
        do {
            let started = server()
            weakServer = started
            try started.start()
            started.stop()
            await #expect(throws: HTTPServerError.stopped) { try await started.run() }
        }
        #expect(weakServer == nil)
    }

    @Test("stop() while a handler runs closes that connection instead of crashing or hanging")
    func stopWithHandlerRunning() async throws {
        let entered = Mutex(false)
        let stopped = server { _ in
            entered.withLock { $0 = true }
            try? await Task.sleep(for: .seconds(2))
            return HTTPResponse(status: 200)
        }
        try stopped.start()
        let port = stopped.port
        let connection = try await BlockingCall.run { () -> RawHTTPConnectionBox in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            return RawHTTPConnectionBox(connection)
        }
        for _ in 0..<100 where !entered.withLock({ $0 }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(entered.withLock { $0 })
        let clock = ContinuousClock()
        let start = clock.now
        stopped.stop()
        // The handler takes 2 s; stop() returns well before that, even on a loaded machine.
        #expect(clock.now - start < .seconds(1), "stop() waited for the handler")
        let closed = try await BlockingCall.run { connection.value.isClosedByPeer() }
        #expect(closed)
        // Let the abandoned handler finish: it must find the connection gone and do nothing.
        try await Task.sleep(for: .milliseconds(2100))
    }

    @Test("stop() under load, with handlers answering and sleeping, neither crashes nor hangs")
    func stopUnderLoad() async throws {
        let answered = Mutex(0)
        let loaded = server { request in
            if request.path.hasSuffix("1") {
                try? await Task.sleep(for: .milliseconds(2))
            }
            answered.withLock { $0 += 1 }
            return HTTPResponse(status: 200, body: Array(request.path.utf8))
        }
        try loaded.start()
        let port = loaded.port
        let clients = (0..<8).map { client in
            Task {
                try await BlockingCall.run { () -> Int in
                    var completed = 0
                    guard let connection = try? RawHTTPConnection(port: port, readTimeoutSeconds: 10) else { return 0 }
                    while completed < 100_000 {
                        do {
                            try connection.send("GET /\(client)/\(completed) HTTP/1.1\r\nHost: x\r\n\r\n")
                            guard try connection.readResponse().status == 200 else { break }
                            completed += 1
                        } catch {
                            break
                        }
                    }
                    return completed
                }
            }
        }
        // Stop once the load is really flowing (not after a fixed time, which a loaded machine may not reach).
        let deadline = ContinuousClock.now + .seconds(20)
        while answered.withLock({ $0 }) < 500, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        loaded.stop()
        var total = 0
        for client in clients {
            total += try await client.value
        }
        #expect(total > 100, "too few requests before stop: \(total)")
        #expect(answered.withLock { $0 } >= total)
    }

    @Test("run() serves until cancelled, lets a running handler answer, then stops")
    func runUntilCancelled() async throws {
        let entered = Mutex(false)
        let running = server { _ in
            entered.withLock { $0 = true }
            try? await Task.sleep(for: .milliseconds(200))
            return HTTPResponse(status: 200, body: Array("late".utf8))
        }
        let task = Task { try await running.run() }
        for _ in 0..<200 where running.port == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        let port = running.port
        #expect(port > 0)
        async let answer = BlockingCall.run {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            return try connection.readResponse()
        }
        for _ in 0..<100 where !entered.withLock({ $0 }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        task.cancel()
        let response = try await answer
        #expect(response.body == Array("late".utf8))
        try await task.value
        let refused = try await BlockingCall.run { () -> Bool in
            (try? RawHTTPConnection(port: port)) == nil
        }
        #expect(refused, "the port still accepts connections after run() returned")
    }
}

@Suite("Draining a cancelled server")
struct DrainTests {
    @Test("once cancelled it takes no new connection, tells a kept-alive client to close after its next answer, and stops when none is left")
    func keepAliveClientIsToldToClose() async throws {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .seconds(60)
        let draining = HTTPServer(configuration: configuration, logger: Logger(label: "drain-test", level: .error)) { _ in
            HTTPResponse(status: 200, body: Array("ok".utf8))
        }
        try draining.start()
        let port = draining.port
        let connection = try await BlockingCall.run { RawHTTPConnectionBox(try RawHTTPConnection(port: port)) }
        let before = try await BlockingCall.run { () -> RawHTTPConnection.Response in
            try connection.value.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            return try connection.value.readResponse()
        }
        #expect(before.status == 200)
        #expect(!before.headers.contains { $0.0.lowercased() == "connection" && $0.1.lowercased() == "close" })

        let started = ContinuousClock.now
        let task = Task { try await draining.run() }
        task.cancel()
        // The listener leaves at once; the open connection is still served, and told to close.
        var refused = false
        for _ in 0..<100 where !refused {
            refused = try await BlockingCall.run { (try? RawHTTPConnection(port: port)) == nil }
            if !refused { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(refused, "a new connection was accepted while draining")
        let during = try await BlockingCall.run { () -> RawHTTPConnection.Response in
            try connection.value.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
            return try connection.value.readResponse()
        }
        #expect(during.status == 200)
        #expect(during.headers.contains { $0.0.lowercased() == "connection" && $0.1.lowercased() == "close" }, "\(during.headers)")
        // With its last connection closed, it stops long before the 60 s grace period (a loaded
        // machine may take seconds; only the grace period running out takes 60).
        try await task.value
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}

/// Carries a connection from one `BlockingCall.run` call to the next; only one thread uses it at a time.
final class RawHTTPConnectionBox: @unchecked Sendable {
    let value: RawHTTPConnection
    init(_ value: RawHTTPConnection) { self.value = value }
}
