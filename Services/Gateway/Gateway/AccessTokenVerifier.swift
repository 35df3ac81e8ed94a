import Contracts
import Foundation
import JOSE
import Logging
import Messaging
import Synchronization

/// Checks service access tokens locally against the issuer's key set (fetched over NATS),
/// and remembers tokens it has verified until they expire, so a client that sends the same
/// token on every request costs one signature check, not one per request.
final class AccessTokenVerifier: Sendable {
    private struct Keys: Sendable {
        let set: VerificationKeySet
        let fetchedAt: ContinuousClock.Instant
    }

    private let issuer: String
    private let audience: String
    private let leeway: Int64
    private let maxCached: Int
    private let keys = Mutex<Keys?>(nil)
    private let verified = Mutex<[String: AccessTokenClaims]>([:])
    private let logger: Logger

    init(issuer: String, audience: String, leeway: Duration, maxCached: Int = 100_000, logger: Logger) {
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway.components.seconds
        self.maxCached = maxCached
        self.logger = logger
    }

    /// The claims of a valid access token, or `UNAUTHORIZED`.
    func verify(_ token: String, client: ServiceClient?, timeout: Duration) async throws(ServiceFailure) -> AccessTokenClaims {
        let now = Int64(Date().timeIntervalSince1970)
        if let claims = verified.withLock({ $0[token] }) {
            guard claims.exp > now else { throw Self.unauthorized("The access token has expired.") }
            return claims
        }
        let jws: CompactJWS
        do {
            jws = try CompactJWS.parse(token, maxLength: 4096)
        } catch {
            throw Self.unauthorized("The access token is malformed.")
        }
        let set = try await keySet(for: jws.header.kid, client: client, timeout: timeout)
        let claims: AccessTokenClaims
        do {
            try jws.verify(with: set, allowed: [.ES256, .EdDSA])
            claims = try JSONDecoder().decode(AccessTokenClaims.self, from: Data(jws.payload))
        } catch {
            throw Self.unauthorized("The access token is not valid.")
        }
        guard claims.iss == issuer, claims.aud == audience else {
            throw Self.unauthorized("The access token is not for this service.")
        }
        guard claims.exp > now else { throw Self.unauthorized("The access token has expired.") }
        guard claims.iat <= now + leeway else { throw Self.unauthorized("The access token is not valid yet.") }
        remember(token, claims, now: now)
        return claims
    }

    /// The issuer's public keys as last fetched, for `/.well-known/jwks.json`.
    func publishedKeys(client: ServiceClient?, timeout: Duration) async throws(ServiceFailure) -> JWKSet {
        guard let client else { throw ServiceFailure.unavailable }
        return try await client.call(Endpoints.accessTokenKeys, AccessTokenKeysRequest(), timeout: timeout, retries: 1).jwks
    }

    private func keySet(for kid: String?, client: ServiceClient?, timeout: Duration) async throws(ServiceFailure) -> VerificationKeySet {
        let current = keys.withLock { $0 }
        if let current {
            let known = kid.map { current.set.key(for: $0) != nil } ?? true
            // An unknown kid may be a key the issuer just rotated in: refetch, at most once a second.
            if known || ContinuousClock.now - current.fetchedAt < .seconds(1) { return current.set }
        }
        guard let client else { throw ServiceFailure.unavailable }
        let reply = try await client.call(Endpoints.accessTokenKeys, AccessTokenKeysRequest(), timeout: timeout, retries: 1)
        let set = VerificationKeySet(reply.jwks)
        keys.withLock { $0 = Keys(set: set, fetchedAt: .now) }
        return set
    }

    private func remember(_ token: String, _ claims: AccessTokenClaims, now: Int64) {
        verified.withLock { cache in
            if cache.count >= maxCached {
                cache = cache.filter { $0.value.exp > now }
                if cache.count >= maxCached { cache.removeAll(keepingCapacity: true) }
            }
            cache[token] = claims
        }
    }

    private static func unauthorized(_ message: String) -> ServiceFailure {
        ServiceFailure(.unauthorized, message)
    }
}
