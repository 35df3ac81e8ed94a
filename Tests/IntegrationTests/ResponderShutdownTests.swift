import Contracts
import Logging
import Messaging
import NATS
import Synchronization
import Testing
import TestSupport

private struct Ask: Codable, Sendable { var n: Int }
private struct Answer: Codable, Sendable { var n: Int }

/// A replica that is stopped (a rolling deploy, a scale-down) answers the requests it has already
/// received; only then does it stop. The others would otherwise wait out their timeout.
@Suite("A stopping responder answers what it has received")
struct ResponderShutdownTests {
    @Test("requests running or waiting when the responder is cancelled all get their answers")
    func drainsOnStop() async throws {
        let logger = Logger(label: "responder-shutdown", level: .error)
        let nats = try await NATSConnection.connect(TestIdentities.configuration(name: "responder-shutdown"), logger: logger)
        let endpoint = Endpoint<Ask, Answer>("test.shutdown.\(RunningStack.uniqueSubject())")
        let handling = Atomic<Int>(0)
        let responder = Responder(connection: nats, endpoint: endpoint, queue: "shutdown-tests", maxConcurrent: 2, logger: logger) { ask in
            handling.add(1, ordering: .relaxed)
            // Work that takes a while, so that requests are still running and waiting when the responder stops.
            try await Task.sleep(for: .milliseconds(300))
            return Answer(n: ask.n * 2)
        }
        // Beside the responder, one more subscriber sees each request once the server has it.
        let requests = Atomic<Int>(0)
        let watcher = try nats.subscribe(endpoint.subject) { _ in requests.add(1, ordering: .relaxed) }
        let running = Task { try await responder.run() }
        try #require(await eventually(timeout: .seconds(10), poll: .milliseconds(10)) { responder.counters.isServing }, "the responder subscribed")
        try await nats.flush(timeout: .seconds(10))

        let client = ServiceClient(connection: nats, logger: logger)
        let calls = (1...6).map { n in
            Task { () throws(ServiceFailure) -> Int in try await client.call(endpoint, Ask(n: n), timeout: .seconds(10)).n }
        }
        // Two are running and four wait behind the bound of two when the responder is stopped: the server has
        // all six (so they reach the responder before its unsubscription does), and its two slots were taken.
        try #require(await eventually(timeout: .seconds(10), poll: .milliseconds(10)) {
            requests.load(ordering: .relaxed) == 6 && handling.load(ordering: .relaxed) >= 2
        }, "six requests sent, two handled")
        watcher.drain()  // so that nothing but the responder takes the requests below
        running.cancel()
        var answers: [Int] = []
        for call in calls {
            answers.append(try await call.value)
        }
        #expect(answers == [2, 4, 6, 8, 10, 12])
        try await running.value
        // Stopped: nobody answers any more.
        await #expect(throws: ServiceFailure.self) { try await client.call(endpoint, Ask(n: 7), timeout: .seconds(2)) }
        await nats.drainAndClose()
    }
}
