import Foundation
import NATS
import Testing

/// A nats-server this test starts and stops itself, on port 14302; the binary is `NATS_SERVER_BINARY`
/// or the first of the usual install paths (Debian puts it in /usr/sbin).
private final class ScratchServer: Sendable {
    static let port = 14302
    static var binary: String {
        if let configured = ProcessInfo.processInfo.environment["NATS_SERVER_BINARY"] { return configured }
        let candidates = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }
    static var url: String { "nats://127.0.0.1:\(port)" }
    private let process: Process

    init() throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-a", "127.0.0.1", "-p", "\(Self.port)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// Starts a server and waits until it accepts connections.
    static func start() async throws -> ScratchServer {
        let server = try ScratchServer()
        for _ in 0..<50 {
            if let probe = try? await TestNATS.connect("probe", url: url) {
                await probe.drainAndClose()
                return server
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        server.stop()
        throw NATSError(code: .connectionFailed, detail: "scratch nats-server on \(port) did not start")
    }
}

/// Polls `condition` every 50 ms for up to `timeout`.
private func eventually(within timeout: Duration, _ condition: () async -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return await condition()
}

@Suite("Reconnect after the server restarts")
struct ReconnectTests {
    @Test func requestsWorkAgainAfterServerRestart() async throws {
        var server = try await ScratchServer.start()
        defer { server.stop() }
        let responder = try await TestNATS.connect("responder", url: ScratchServer.url, reconnectWait: .milliseconds(100))
        let requester = try await TestNATS.connect("requester", url: ScratchServer.url, reconnectWait: .milliseconds(100))
        try await TestNATS.respond(on: responder, subject: "reconnect.echo")
        // Generous timeouts where an answer is expected: the suites run in parallel on a 2-core machine.
        let before = try await requester.request("reconnect.echo", [1], timeout: .seconds(10))
        #expect(before.payload == [1])

        server.stop()
        #expect(try await eventually(within: .seconds(5)) { !requester.isConnected })
        let started = ContinuousClock.now
        await #expect(throws: NATSError.notConnected) {
            _ = try await requester.request("reconnect.echo", [2], timeout: .seconds(10))
        }
        #expect((ContinuousClock.now - started).seconds < 5)  // far sooner than the 10 s timeout

        server = try await ScratchServer.start()
        #expect(try await eventually(within: .seconds(10)) { requester.isConnected && responder.isConnected })
        // The responder's subscription is re-sent on reconnect; allow it a moment to reach the server.
        let answered = try await eventually(within: .seconds(15)) {
            (try? await requester.request("reconnect.echo", [3], timeout: .seconds(2)))?.payload == [3]
        }
        #expect(answered)
        await requester.drainAndClose()
        await responder.drainAndClose()
    }
}
