import Logging
import Runtime
import Synchronization
import Testing

@Suite("Backoff and Retry: the one retry policy", .timeLimit(.minutes(1)))
struct BackoffTests {
    @Test("waits double from first and stop at the cap", arguments: [
        // (first, cap, the waits after 1, 2, ... failures): the presets the services use, as they were before.
        (1, 60, [1, 2, 4, 8, 16, 32, 60, 60]),   // an event's redelivery (EventConsumer)
        (2, 30, [2, 4, 8, 16, 30, 30]),          // a revocation's redelivery (RevocationConsumer)
        (1, 30, [1, 2, 4, 8, 16, 30, 30]),       // the outbox's failed rounds
        // The outbox's parked rows: its SQL waits ceiling(afterFailures: attempts + 1), 30 s after the first claim.
        (15, 3600, [15, 30, 60, 120, 240, 480, 960, 1920, 3600, 3600]),
    ])
    func ceilings(first: Int, cap: Int, waits: [Int]) {
        let backoff = Backoff(first: .seconds(first), cap: .seconds(cap))
        #expect((1...waits.count).map { backoff.ceiling(afterFailures: $0) } == waits.map { .seconds($0) })
        #expect(backoff.ceiling(afterFailures: 0) == .seconds(first), "no failure yet waits as after the first")
        #expect(backoff.ceiling(afterFailures: 10_000) == .seconds(cap), "a huge count neither overflows nor passes the cap")
    }

    @Test("doublingsToCap bounds the exponent: the outbox's parked rows (15 s to 3600 s) need 8")
    func doublingsToCap() {
        #expect(Backoff(first: .seconds(15), cap: .seconds(3600)).doublingsToCap == 8)
        #expect(Backoff(first: .seconds(1), cap: .seconds(1)).doublingsToCap == 0)
        let calls = Backoff(first: .milliseconds(25), cap: .milliseconds(400))
        #expect(calls.ceiling(afterFailures: calls.doublingsToCap + 1) == .milliseconds(400))
        #expect(calls.ceiling(afterFailures: calls.doublingsToCap) < .milliseconds(400))
    }

    @Test("jitter scales the wait by the drawn factor, within the range; none draws nothing")
    func jitter() {
        let calls = Backoff(first: .milliseconds(25), cap: .milliseconds(400), jitter: 0.75...1.25)
        #expect(calls.delay(afterFailures: 3) { $0.lowerBound } == .milliseconds(75))
        #expect(calls.delay(afterFailures: 3) { $0.upperBound } == .milliseconds(125))
        for failures in 1...8 {
            let wait = calls.delay(afterFailures: failures)
            #expect(wait >= calls.ceiling(afterFailures: failures) * 0.75 && wait <= calls.ceiling(afterFailures: failures) * 1.25)
        }
        let plain = Backoff(first: .seconds(1), cap: .seconds(8))
        #expect(plain.delay(afterFailures: 2) { _ in Issue.record("drew a factor for no jitter"); return 2 } == .seconds(2))
    }

    @Test("untilAvailable tries again while the other side is unavailable, warns once, and returns the answer")
    func untilAvailableRetries() async throws {
        let attempts = Atomic<Int>(0)
        let sink = LogSink.capturing()
        let logger = Logger(label: "t", level: .info, format: .text, sink: sink)
        let answer = try await Retry.untilAvailable(every: .milliseconds(1), logger: logger, warning: "not yet", fields: ["what": "test"],
                                                    isUnavailable: { $0 is Unavailable }) {
            if attempts.add(1, ordering: .relaxed).newValue < 3 { throw Unavailable() }
            return 42
        }
        #expect(answer == 42)
        #expect(attempts.load(ordering: .relaxed) == 3)
        #expect(sink.lines.filter { $0.contains("not yet") }.count == 1, "\(sink.lines)")
        #expect(sink.lines.first?.contains("what=test") == true, "\(sink.lines)")
    }

    @Test("untilAvailable throws an error that is not unavailability at once")
    func untilAvailableThrowsOtherErrors() async {
        let attempts = Atomic<Int>(0)
        await #expect(throws: Broken.self) {
            try await Retry.untilAvailable(every: .milliseconds(1), logger: Logger(label: "t", level: .critical), warning: "w",
                                           isUnavailable: { $0 is Unavailable }) { () async throws -> Int in
                attempts.add(1, ordering: .relaxed)
                throw Broken()
            }
        }
        #expect(attempts.load(ordering: .relaxed) == 1)
    }

    @Test("untilAvailable ends with CancellationError when its task is cancelled")
    func untilAvailableCancelled() async {
        let attempts = Atomic<Int>(0)
        let task = Task {
            try await Retry.untilAvailable(every: .seconds(3600), logger: Logger(label: "t", level: .critical), warning: "w",
                                           isUnavailable: { _ in true }) { () async throws -> Int in
                attempts.add(1, ordering: .relaxed)
                throw Unavailable()
            }
        }
        // Cancelled while it waits for the next attempt: the wait ends at once.
        while attempts.load(ordering: .relaxed) == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    private struct Unavailable: Error {}
    private struct Broken: Error {}
}
