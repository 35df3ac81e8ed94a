import Foundation
import HTTPClient
import JOSE
import JSON
import Logging

/// One provider's key set, fetched over HTTP and cached.
///
/// - Cached for the response's `Cache-Control: max-age`, bounded (default [1 min, 1 day]; 1 h when absent).
/// - Refreshed in the background once three quarters of that time has passed.
/// - A failed refetch keeps the old keys, which serve until they expire.
/// - A token with an unknown `kid` triggers one refetch, at most once per `unknownKeyInterval`
///   (30 s), however many such tokens arrive: no refetch storms.
/// - Concurrent callers share one fetch in flight; a caller with an unknown `kid` waits for one
///   under way rather than take the keys it may be about to replace.
actor JWKSCache: VerificationKeySource {
    /// The timings of the cache.
    struct Policy: Sendable {
        /// The range `max-age` is clamped to.
        var maxAgeBounds: ClosedRange<Duration> = .seconds(60) ... .seconds(86_400)
        /// The lifetime when the response has no `max-age`.
        var defaultMaxAge: Duration = .seconds(3600)
        /// At most one refetch for an unknown `kid` in this interval.
        var unknownKeyInterval: Duration = .seconds(30)
        /// After a failed fetch, how long before the next attempt (background or, with no keys, any).
        var retryInterval: Duration = .seconds(1)
    }

    private let url: String
    private let client: HTTPClient
    private let timeout: Duration
    private let policy: Policy
    private let logger: Logger

    private var keys: VerificationKeySet?
    private var expiresAt: ContinuousClock.Instant = .now
    private var refreshAt: ContinuousClock.Instant = .now
    private var lastUnknownKeyFetch: ContinuousClock.Instant?
    private var lastFailure: (at: ContinuousClock.Instant, error: any Error)?
    private var inFlight: Task<VerificationKeySet, any Error>?

    init(url: String, client: HTTPClient, timeout: Duration, policy: Policy = Policy(), logger: Logger) {
        self.url = url
        self.client = client
        self.timeout = timeout
        self.policy = policy
        self.logger = logger.with(["jwks.url": url])
    }

    /// The key set to verify a token whose header names `kid`; throws when no keys can be had.
    func keys(for kid: String?) async throws -> VerificationKeySet {
        let now = ContinuousClock.now
        guard let keys, now < expiresAt else {
            // No usable keys: fetch, unless a fetch just failed (a down provider is not hammered).
            if inFlight == nil, let lastFailure, now - lastFailure.at < policy.retryInterval { throw lastFailure.error }
            return try await fetch()
        }
        if now >= refreshAt, inFlight == nil {
            // Pushed forward at once so that a burst of callers starts one background refresh.
            refreshAt = now + policy.retryInterval
            Task { _ = try? await self.fetch() }
        }
        if let kid, keys.key(for: kid) == nil {
            if let last = lastUnknownKeyFetch, now - last < policy.unknownKeyInterval {
                // This window's refetch was made, or is under way: wait for one under way, so that
                // logins signed with a key just published are not refused while it downloads.
                if let inFlight { return (try? await inFlight.value) ?? self.keys ?? keys }
                return keys
            }
            lastUnknownKeyFetch = now
            logger.info("unknown key id, refetching key set")
            // A download already under way may have started before the key was published; if
            // joining it did not bring the key, download once more (still one budget spent).
            let joined = inFlight != nil
            let fetched = (try? await fetch()) ?? keys
            if joined, fetched.key(for: kid) == nil {
                return (try? await fetch()) ?? fetched
            }
            return fetched
        }
        return keys
    }

    /// Fetches the key set, sharing one download among concurrent callers.
    private func fetch() async throws -> VerificationKeySet {
        if let inFlight { return try await inFlight.value }
        let task = Task { try await self.refresh() }
        inFlight = task
        defer { inFlight = nil }
        return try await task.value
    }

    /// Downloads the key set and caches it; on failure, the old keys while they have not expired.
    private func refresh() async throws -> VerificationKeySet {
        do {
            let (set, maxAge) = try await download()
            let now = ContinuousClock.now
            keys = set
            expiresAt = now + maxAge
            refreshAt = now + maxAge * 3 / 4
            lastFailure = nil
            return set
        } catch {
            logger.warning("key set fetch failed", ["error": String(describing: error)])
            let now = ContinuousClock.now
            lastFailure = (now, error)
            refreshAt = now + policy.retryInterval
            if let keys, now < expiresAt { return keys }
            throw error
        }
    }

    private func download() async throws -> (VerificationKeySet, Duration) {
        let response = try await client.execute(HTTPClientRequest(url: url, headers: [("Accept", "application/json")], timeout: timeout))
        guard response.status == 200 else { throw VerifierError.providerStatus(response.status) }
        let set = try MessageCoding.decode(JWKSet.self, from: response.body)
        let keys = VerificationKeySet(set)
        for (key, error) in keys.skipped {
            logger.debug("key skipped", ["jwks.kid": key, "error": error.code])
        }
        if keys.isEmpty { throw VerifierError.jwksEmpty }
        return (keys, Self.maxAge(response.header("cache-control"), policy: policy))
    }

    /// `max-age` from a Cache-Control header, clamped to the policy's bounds; its default when absent.
    static func maxAge(_ cacheControl: String?, policy: Policy = Policy()) -> Duration {
        guard let cacheControl else { return policy.defaultMaxAge }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if parts.count == 2, parts[0] == "max-age", let seconds = Int(parts[1]), seconds >= 0 {
                let age = Duration.seconds(seconds)
                return min(max(age, policy.maxAgeBounds.lowerBound), policy.maxAgeBounds.upperBound)
            }
        }
        return policy.defaultMaxAge
    }
}
