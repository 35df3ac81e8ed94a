import Synchronization

/// Remembers the last failed connection attempt of a pool, so that calls during an outage fail fast
/// with `.unavailable` for a short backoff instead of each waiting for its own attempt to fail.
final class ConnectGate: Sendable {
    private let backoff: Duration
    private let lastFailure = Mutex<ContinuousClock.Instant?>(nil)

    init(backoff: Duration) {
        self.backoff = backoff
    }

    /// Throws `.unavailable` while a recent attempt failed less than the backoff ago.
    func checkOpen() throws {
        let failedAt = lastFailure.withLock { $0 }
        if let failedAt, ContinuousClock.now - failedAt < backoff {
            throw PostgresError.unavailable
        }
    }

    /// Records the outcome of an attempt.
    func record(success: Bool) {
        lastFailure.withLock { $0 = success ? nil : ContinuousClock.now }
    }
}
