import Contracts
@testable import Messaging
@testable import Persistence
import Runtime
import Testing
@testable import TokenVerifier

/// Each retry's `Backoff` preset, and the waits they give, as the formulas they replaced gave them.
@Suite("Retry presets: the waits of each retry, as before Backoff")
struct RetryPresetTests {
    @Test("each preset is what it says")
    func presets() {
        #expect(CallRetryPolicy.pauses == Backoff(first: .milliseconds(25), cap: .milliseconds(400), jitter: 0.75...1.25))
        #expect(Outbox.rounds == Backoff(first: .seconds(1), cap: .seconds(30), jitter: 0.5...1.0))
        #expect(Outbox.parking == Backoff(first: .seconds(15), cap: .seconds(Outbox.parkedFor)))
        #expect(EventConsumer<MemberCreated>.redelivery == Backoff(first: .seconds(1), cap: .seconds(60)))
        #expect(RevocationConsumer.redelivery == Backoff(first: .seconds(2), cap: .seconds(30)))
    }

    @Test("the redeliveries and the parked rows wait as the replaced formulas did", arguments: Array(-1...12))
    func waitsAsBefore(count: Int) {
        #expect(EventConsumer<MemberCreated>.retryDelay(delivery: count) == .seconds(min(1 << min(max(count - 1, 0), 6), 60)))
        #expect(RevocationConsumer.retryDelay(delivery: count) == .seconds(min(2 << min(max(count - 1, 0), 4), 30)))
        // The outbox's SQL: least(parkedFor, 15 * power(2, least(attempts, 8))), attempts already 1 at the first claim.
        let attempts = max(count, 1)
        #expect(Outbox.parking.ceiling(afterFailures: attempts + 1) == .seconds(min(Outbox.parkedFor, 15 << min(attempts, 8))))
        #expect(Outbox.parking.doublingsToCap == 8)
    }
}
