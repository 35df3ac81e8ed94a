import Collections
import Runtime
import Synchronization

/// A token bucket per client address: `rate` requests a second on average, bursts up to `burst`.
///
/// A bucket is kept only until it would be full again (forgetting it then loses nothing), in the order
/// of that moment, so each request drops the buckets that are full again from the front and never scans
/// the table. At most `maxAddresses` buckets are kept: beyond that the one nearest to full again is
/// forgotten, which gives its address at most a few more requests, never a flood a fresh address
/// per request could get from forgetting the emptiest.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let rate: Double
    private let burst: Double
    private let buckets: Mutex<ExpiringDictionary<String, Bucket, ContinuousClock.Instant>>

    /// A limiter allowing `rate` requests a second with bursts of `burst` per address, for at most `maxAddresses` addresses.
    init(rate: Int, burst: Int, maxAddresses: Int = 100_000) {
        self.rate = Double(rate)
        self.burst = Double(max(burst, 1))
        self.buckets = Mutex(ExpiringDictionary(capacity: maxAddresses))
    }

    /// The addresses that have a bucket now (some may be full again and not yet dropped).
    var addressCount: Int {
        buckets.withLock { $0.count }
    }

    /// Takes a token for `address`: nil when allowed, else the seconds to wait before retrying.
    func acquire(_ address: String, now: ContinuousClock.Instant = .now) -> Int? {
        buckets.withLock { buckets in
            var bucket = buckets[address]?.value ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated).timeInterval * rate)
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            let fullAgain = now + .seconds((burst - bucket.tokens) / rate)
            buckets.update(bucket, for: address, expiry: fullAgain, now: now)
            return allowed ? nil : max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }
}
