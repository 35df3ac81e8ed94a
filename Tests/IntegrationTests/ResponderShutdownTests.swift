import Contracts
import Logging
import Messaging
import NATS
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
        let responder = Responder(connection: nats, endpoint: endpoint, queue: "shutdown-tests", maxConcurrent: 2, logger: logger) { ask in
            try await Task.sleep(for: .milliseconds(300))
            return Answer(n: ask.n * 2)
        }
        let running = Task { try await responder.run() }
        try await Task.sleep(for: .milliseconds(300))  // subscribed
        try await nats.flush(timeout: .seconds(10))

        let client = ServiceClient(connection: nats, logger: logger)
        let calls = (1...6).map { n in
            Task { () throws(ServiceFailure) -> Int in try await client.call(endpoint, Ask(n: n), timeout: .seconds(10)).n }
        }
        // Two are running and four wait behind the bound of two when the responder is stopped.
        try await Task.sleep(for: .milliseconds(100))
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
