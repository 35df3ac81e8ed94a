import Foundation
import HTTPClient
import JOSE
import Logging

/// One provider's key set, fetched over HTTP and cached.
///
/// - Cached for the response's `Cache-Control: max-age`, bounded to [1 min, 1 day] (1 h when absent).
/// - Refreshed in the background once three quarters of that time has passed.
/// - A failed refetch keeps the old keys, which serve until they expire.
/// - A token with an unknown `kid` triggers one refetch, at most once per `unknownKeyInterval`
///   (30 s), however many such tokens arrive: no refetch storms.
/// - Concurrent callers share one fetch in flight.
actor JWKSCache {
    private let url: String
    private let client: HTTPClient
    private let timeout: Duration
    private let unknownKeyInterval: Duration
    private let logger: Logger

    private var keys: VerificationKeySet?
    private var expiresAt: ContinuousClock.Instant = .now
    private var refreshAt: ContinuousClock.Instant = .now
    private var lastUnknownKeyFetch: ContinuousClock.Instant?
    private var inFlight: Task<VerificationKeySet, any Error>?

    init(url: String, client: HTTPClient, timeout: Duration, unknownKeyInterval: Duration = .seconds(30), logger: Logger) {
        self.url = url
        self.client = client
        self.timeout = timeout
        self.unknownKeyInterval = unknownKeyInterval
        self.logger = logger.with(["jwks.url": url])
    }

    /// The key set to verify a token whose header names `kid`; throws when no keys can be had.
    func keys(for kid: String?) async throws -> VerificationKeySet {
        let now = ContinuousClock.now
        guard let keys, now < expiresAt else {
            return try await fetch()
        }
        if now >= refreshAt, inFlight == nil {
            Task { _ = try? await self.fetch() }
        }
        if let kid, keys.key(for: kid) == nil {
            if let last = lastUnknownKeyFetch, now - last < unknownKeyInterval {
                return keys
            }
            lastUnknownKeyFetch = now
            logger.info("unknown key id, refetching key set")
            return (try? await fetch()) ?? keys
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
            return set
        } catch {
            logger.warning("key set fetch failed", ["error": String(describing: error)])
            if let keys, ContinuousClock.now < expiresAt { return keys }
            throw error
        }
    }

    private func download() async throws -> (VerificationKeySet, Duration) {
        let response = try await client.execute(HTTPClientRequest(url: url, headers: [("Accept", "application/json")], timeout: timeout))
        guard response.status == 200 else { throw VerifierError.jwksStatus(response.status) }
        let set = try JSONDecoder().decode(JWKSet.self, from: Data(response.body))
        let keys = VerificationKeySet(set)
        if keys.kids.isEmpty { throw VerifierError.jwksEmpty }
        return (keys, Self.maxAge(response.header("cache-control")))
    }

    /// `max-age` from a Cache-Control header, bounded to [60 s, 1 day]; 1 hour when absent.
    static func maxAge(_ cacheControl: String?) -> Duration {
        guard let cacheControl else { return .seconds(3600) }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if parts.count == 2, parts[0] == "max-age", let seconds = Int(parts[1]) {
                return .seconds(min(max(seconds, 60), 86_400))
            }
        }
        return .seconds(3600)
    }
}
