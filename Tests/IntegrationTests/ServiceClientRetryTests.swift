import Contracts
import Logging
import Messaging
import NATS
import Testing
import TestSupport

private struct Ask: Codable, Sendable { var n: Int }
private struct Answer: Codable, Sendable { var n: Int }

/// What a call does while nobody can take it yet, as while the clients of a lost NATS node move to
/// the others: it waits (up to ``ServiceClient/failoverPatience``) instead of failing at once.
@Suite("A call waits briefly for a responder")
struct ServiceClientRetryTests {
    let logger = Logger(label: "service-client-retry", level: .error)

    /// A connection of this suite, an endpoint nobody serves yet, and a client on the connection.
    private func connect() async throws -> (NATSConnection, Endpoint<Ask, Answer>, ServiceClient) {
        let nats = try await NATSConnection.connect(TestIdentities.configuration(name: "service-client-retry"), logger: logger)
        return (nats, Endpoint<Ask, Answer>("test.retry.\(RunningStack.uniqueSubject())"), ServiceClient(connection: nats, logger: logger))
    }

    /// Starts answering `endpoint` with `handler` on `nats`; cancel the task to stop.
    private func serve(_ nats: NATSConnection, _ endpoint: Endpoint<Ask, Answer>,
                       _ handler: @escaping Responder<Ask, Answer>.Handler) -> Task<Void, any Error> {
        let responder = Responder(connection: nats, endpoint: endpoint, queue: "retry-tests", logger: logger, handler: handler)
        return Task { try await responder.run() }
    }

    @Test("a call, even one not to be repeated, made before any replica subscribes is answered once one does")
    func waitsForAResponder() async throws {
        let (nats, endpoint, client) = try await connect()
        let call = Task { () throws(ServiceFailure) -> Int in try await client.call(endpoint, Ask(n: 21), timeout: .seconds(5)).n }
        // The call waits for a responder meanwhile; a longer pause only makes it wait longer.
        try await Task.sleep(for: .milliseconds(600))
        let serving = serve(nats, endpoint) { Answer(n: $0.n * 2) }
        #expect(try await call.value == 42)
        serving.cancel()
        await nats.drainAndClose()
    }

    @Test("the wait for a responder counts toward the call's timeout: a call found nobody for 1.5 s of its 3, then a responder that takes 2 s, gives up at its timeout")
    func waitingCountsTowardTheTimeout() async throws {
        let (nats, endpoint, client) = try await connect()
        let started = ContinuousClock.now
        let call = Task { () throws(ServiceFailure) -> Int in try await client.call(endpoint, Ask(n: 1), timeout: .seconds(3)).n }
        try await Task.sleep(for: .milliseconds(1_500))  // the call's time without a responder, as the test names it
        let serving = serve(nats, endpoint) { ask in
            try await Task.sleep(for: .seconds(2))  // a slow responder
            return Answer(n: ask.n)
        }
        // Without the shared deadline the last attempt got the whole 3 s after the 1.5 s of waiting, and the
        // answer at about 3.5 s came in time. The outcome shows it, however late this task is woken.
        await #expect { try await call.value } throws: { ($0 as? ServiceFailure)?.code == .timeout }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(2_900), "\(elapsed)")
        serving.cancel()
        await nats.drainAndClose()
    }

    @Test("with nobody ever answering, the call fails as unavailable after the patience, not the whole timeout")
    func givesUpAfterThePatience() async throws {
        let (nats, endpoint, client) = try await connect()
        let started = ContinuousClock.now
        await #expect(throws: ServiceFailure.unavailable) {
            try await client.call(endpoint, Ask(n: 1), timeout: .seconds(20), retries: 1)
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .seconds(2) && elapsed < .seconds(10), "\(elapsed)")
        await nats.drainAndClose()
    }
}
