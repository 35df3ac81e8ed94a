import Runtime
import Synchronization

/// A token bucket per client address: `rate` requests a second on average, bursts up to
/// `burst`. Buckets of addresses that have gone quiet are dropped when the table grows.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let rate: Double
    private let burst: Double
    private let maxAddresses: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    /// A limiter allowing `rate` requests a second with bursts of `burst` per address.
    init(rate: Int, burst: Int, maxAddresses: Int = 100_000) {
        self.rate = Double(rate)
        self.burst = Double(max(burst, 1))
        self.maxAddresses = maxAddresses
    }

    /// Takes a token for `address`: nil when allowed, else the seconds to wait before retrying.
    func acquire(_ address: String, now: ContinuousClock.Instant = .now) -> Int? {
        buckets.withLock { buckets in
            var bucket = buckets[address] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated).timeInterval * rate)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[address] = bucket
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            if buckets.count >= maxAddresses, buckets[address] == nil {
                // Forget addresses whose bucket would be full again: they lose nothing.
                let fullAfter = burst / rate
                buckets = buckets.filter {
                    let idle = now - $0.value.updated
                    return Double(idle.components.seconds) < fullAfter
                }
            }
            buckets[address] = bucket
            return nil
        }
    }
}
