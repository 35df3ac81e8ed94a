import DevIDP
import Foundation
import Logging
import Testing
@testable import TokenVerifier

/// The key-set cache against a dev identity provider of its own, counting its fetches.
@Suite("JWKS cache", .serialized)
struct JWKSCacheTests {
    /// One dev IdP serving key sets with max-age 4 s, shared by the tests (key generation is
    /// costly), which run one at a time and count fetches as differences.
    private static let shared = Task { try await PrivateIDP.start(jwksMaxAge: 4) }

    private func cache(_ url: String, _ provider: String, policy: JWKSCache.Policy) -> JWKSCache {
        JWKSCache(url: url + "/\(provider)/jwks", client: testHTTPClient, timeout: .seconds(5), policy: policy,
                  logger: Logger(label: "jwks", level: .error))
    }

    private func fetches(_ idp: DevIdentityProvider, _ provider: String) async -> Int {
        await idp.jwksFetches()[provider] ?? 0
    }

    private var shortPolicy: JWKSCache.Policy {
        var policy = JWKSCache.Policy()
        policy.maxAgeBounds = .seconds(1) ... .seconds(60)
        policy.retryInterval = .milliseconds(200)
        policy.unknownKeyInterval = .seconds(1)
        return policy
    }

    @Test("max-age is honoured within its bounds; absent, one hour")
    func maxAgeBounds() {
        #expect(JWKSCache.maxAge("public, max-age=600") == .seconds(600))
        #expect(JWKSCache.maxAge("max-age=5") == .seconds(60))
        #expect(JWKSCache.maxAge("max-age=9999999") == .seconds(86_400))
        #expect(JWKSCache.maxAge("no-store") == .seconds(3600))
        #expect(JWKSCache.maxAge(nil) == .seconds(3600))
        #expect(JWKSCache.maxAge("max-age=-4") == .seconds(3600))
    }

    @Test("keys are fetched once and served from the cache until three quarters of max-age, then refreshed ahead")
    func cachesAndRefreshesAhead() async throws {
        let (url, idp) = try await Self.shared.value
        let cache = cache(url, "apple", policy: shortPolicy)
        let kid = try #require(await idp.signingJWK("apple")?.kid)
        let before = await fetches(idp, "apple")
        for _ in 0..<50 { _ = try await cache.keys(for: kid) }
        #expect(await fetches(idp, "apple") - before == 1)
        try await Task.sleep(for: .milliseconds(3200))
        let served = try await cache.keys(for: kid)
        #expect(served.key(for: kid) != nil)
        let refreshed = await eventually { await fetches(idp, "apple") - before == 2 }
        #expect(refreshed, "a background refresh after 3/4 of max-age")
        for _ in 0..<20 { _ = try await cache.keys(for: kid) }
        #expect(await fetches(idp, "apple") - before == 2)
    }

    @Test("a failed refetch keeps the old keys until they expire; then the provider is unavailable until it is back")
    func keepsKeysOnFailure() async throws {
        let (url, idp) = try await Self.shared.value
        let cache = cache(url, "google", policy: shortPolicy)
        let kid = try #require(await idp.signingJWK("google")?.kid)
        let start = ContinuousClock.now
        _ = try await cache.keys(for: kid)
        await idp.control("google", ProviderControl(jwksAvailable: false))
        try await Task.sleep(until: start + .milliseconds(3200))
        #expect(try await cache.keys(for: kid).key(for: kid) != nil, "old keys serve while the refetch fails")
        try await Task.sleep(until: start + .milliseconds(4600))
        await #expect(throws: (any Error).self, "expired keys are not served") { try await cache.keys(for: kid) }
        await idp.control("google", ProviderControl(jwksAvailable: true))
        let back = await eventually { (try? await cache.keys(for: kid))?.key(for: kid) != nil }
        #expect(back, "keys again once the provider is back")
    }

    @Test("a flood of unknown kids refetches once per 30 s at most")
    func unknownKidFlood() async throws {
        let (url, idp) = try await Self.shared.value
        let cache = cache(url, "kakao", policy: JWKSCache.Policy())
        let before = await fetches(idp, "kakao")
        _ = try await cache.keys(for: "any")
        #expect(await fetches(idp, "kakao") - before == 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<1000 {
                group.addTask { _ = try await cache.keys(for: UUID().uuidString) }
            }
            try await group.waitForAll()
        }
        #expect(await fetches(idp, "kakao") - before == 2, "one refetch for the whole flood")
        // A key rotated in now stays unknown until the interval has passed: no storms, by design.
        let rotated = try #require(try await idp.rotate("kakao"))
        #expect(try await cache.keys(for: rotated).key(for: rotated) == nil)
        #expect(await fetches(idp, "kakao") - before == 2)
    }

    @Test("callers with a key just rotated in all wait for the one refetch under way, none gets the old set")
    func concurrentCallersJoinTheRefetch() async throws {
        let (url, idp) = try await Self.shared.value
        let cache = cache(url, "google", policy: JWKSCache.Policy())
        _ = try await cache.keys(for: nil)
        let rotated = try #require(try await idp.rotate("google"))
        let before = await fetches(idp, "google")
        let found = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask { try await cache.keys(for: rotated).key(for: rotated) != nil }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(found.filter { !$0 }.count == 0, "\(found.filter { !$0 }.count) of 50 callers got the old key set")
        #expect(await fetches(idp, "google") - before == 1, "one refetch for all of them")
    }

    @Test("a key rotated in at the issuer is found by one refetch, without a restart")
    func rotation() async throws {
        let (url, idp) = try await Self.shared.value
        let cache = cache(url, "kakao", policy: shortPolicy)
        let first = try #require(await idp.signingJWK("kakao")?.kid)
        let before = await fetches(idp, "kakao")
        _ = try await cache.keys(for: first)
        let rotated = try #require(try await idp.rotate("kakao"))
        let keys = try await cache.keys(for: rotated)
        #expect(keys.key(for: rotated) != nil)
        #expect(keys.key(for: first) != nil, "the old key stays")
        #expect(await fetches(idp, "kakao") - before == 2)
    }
}

/// Polls `condition` for up to five seconds.
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<50 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return await condition()
}
