import Collections
import Logging
import Management
import Metrics
import Runtime
import Testing
import TestSupport

/// The management port as the first service of a process's group (`Shared/Management/ManagementServer.swift`).
@Suite("A stopping process's management port: /readyz 503 at once, answered until the rest has stopped", .timeLimit(.minutes(1)))
struct ManagementShutdownTests {
    @Test("once the group begins to stop, /readyz answers 503 \"stopping\" while a later service still stops; then the port closes")
    func readyzDuringStop() async throws {
        let readiness = Readiness()
        let (ports, told) = AsyncStream<Int>.makeStream()
        let management = ManagementServer(configuration: .init(host: "127.0.0.1", port: 0), metrics: MetricsRegistry(),
                                          readiness: readiness, logger: Logger(label: "test", level: .error),
                                          onListening: { told.yield($0) })
        let stopping = Gate()
        let release = Gate()
        // Stops only when the test lets it: the state under test is the group in the middle of its stop.
        let slow = ClosureService("slow-to-stop") {
            await Task.sleepUntilCancelled()
            stopping.open()
            await release.opened()
        }
        readiness.started()
        // No hook given: the management server turns its readiness 503 itself when the group begins to stop.
        let group = ServiceGroup(services: [management, slow], logger: Logger(label: "test", level: .error))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let readyz = "http://127.0.0.1:\(port)/readyz"
        #expect(try await RunningStack.send("GET", readyz).status == 200)

        running.cancel()
        await stopping.opened()
        let answer = try await RunningStack.send("GET", readyz)
        #expect(answer.status == 503 && answer.text.contains("stopping"), "\(answer.status) \(answer.text)")
        #expect(try await RunningStack.send("GET", "http://127.0.0.1:\(port)/healthz").status == 200)

        release.open()
        try await running.value
        await #expect(throws: (any Error).self) { try await RunningStack.send("GET", readyz) }
    }
}
