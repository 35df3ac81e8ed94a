/// The one formula for growing waits between attempts: `first` after the first failure, doubling after
/// each one, never more than `cap`; each wait drawn from `jitter` times that (so the replicas and calls
/// that failed together do not all come back together). Every growing wait of the services uses it: a
/// call's pause (`ServiceClient`), the outbox's rounds and its parked rows, an event's and a revocation's
/// redelivery. (A fixed wait is no backoff: `Retry.untilAvailable` waits a second each time.)
public struct Backoff: Sendable, Equatable {
    /// The wait after the first failure.
    public var first: Duration
    /// The longest wait, before jitter.
    public var cap: Duration
    /// The factors a wait is drawn from; `1...1` for none.
    public var jitter: ClosedRange<Double>

    /// A backoff; `first` and `cap` must be positive, `cap` at least `first`, and the factors positive.
    public init(first: Duration, cap: Duration, jitter: ClosedRange<Double> = 1...1) {
        precondition(first > .zero && cap >= first && jitter.lowerBound > 0, "a backoff needs 0 < first <= cap and positive factors")
        self.first = first
        self.cap = cap
        self.jitter = jitter
    }

    /// The wait before attempt `failures + 1`, without jitter: `first × 2^(failures − 1)`, at most `cap`
    /// (`first` for `failures` of 1 or less).
    public func ceiling(afterFailures failures: Int) -> Duration {
        min(first * (1 << min(max(failures - 1, 0), doublingsToCap)), cap)
    }

    /// How many doublings take `first` to `cap` (more change nothing): a bound for an exponent
    /// computed elsewhere, as the outbox's SQL does.
    public var doublingsToCap: Int {
        var wait = first
        var doublings = 0
        while wait < cap {
            wait = wait * 2
            doublings += 1
        }
        return doublings
    }

    /// The wait before attempt `failures + 1`, jitter drawn (`draw` picks a factor in the range it is given).
    public func delay(afterFailures failures: Int,
                      draw: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }) -> Duration {
        let ceiling = ceiling(afterFailures: failures)
        guard jitter.lowerBound < jitter.upperBound else { return jitter.lowerBound == 1 ? ceiling : ceiling * jitter.lowerBound }
        return ceiling * draw(jitter)
    }
}
