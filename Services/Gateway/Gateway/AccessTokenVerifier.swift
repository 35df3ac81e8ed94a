import Contracts
import Foundation
import JOSE
import Logging
import Messaging
import NATS
import Synchronization

/// Checks service access tokens locally against the issuer's key set (fetched over NATS),
/// and remembers tokens it has verified until they expire, so a client that sends the same
/// token on every request costs one signature check, not one per request.
///
/// Tokens of ended sessions are refused: every `session.ended` event (a plain subscription, no
/// queue group, so every gateway replica sees every event) puts the session on a list kept until
/// the session's last token expired, and both the signature check and the cache consult it.
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
    /// Ended session IDs and when to forget them (seconds since 1970).
    private let endedSessions = Mutex<[String: Int64]>([:])
    /// The `session.ended` subscription, made on the first request that has a NATS connection.
    private let endedSubscription = Mutex<NATSSubscription?>(nil)
    /// How long an ended session is remembered when its event does not say (the largest ACCESS_TOKEN_TTL).
    private static let endedFallbackRetention: Int64 = 86_400
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
        if let client { watchEndedSessions(client.connection) }
        if let claims = verified.withLock({ $0[token] }) {
            guard claims.exp > now else { throw Self.unauthorized("The access token has expired.") }
            try checkSessionLive(claims)
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
        try checkSessionLive(claims)
        remember(token, claims, now: now)
        return claims
    }

    /// Refuses the tokens of `sessionIds` from now on (until `expireAt`, or the fallback retention):
    /// the gateway calls this when a logout it forwarded ended them, before any event arrives.
    func sessionsEnded(_ sessionIds: [String], tokensExpireAt expireAt: Date? = nil) {
        guard !sessionIds.isEmpty else { return }
        let now = Int64(Date().timeIntervalSince1970)
        let until = expireAt.map { Int64($0.timeIntervalSince1970) + leeway } ?? now + Self.endedFallbackRetention
        guard until > now else { return }
        endedSessions.withLock { ended in
            if ended.count >= maxCached {
                ended = ended.filter { $0.value > now }
            }
            for sessionId in sessionIds { ended[sessionId] = max(ended[sessionId] ?? 0, until) }
        }
    }

    private func checkSessionLive(_ claims: AccessTokenClaims) throws(ServiceFailure) {
        if endedSessions.withLock({ $0[claims.sid] != nil }) {
            throw Self.unauthorized("The access token's session has ended; sign in again.")
        }
    }

    /// Subscribes to `session.ended` once a connection is there. cnats re-subscribes after a reconnect;
    /// events missed while disconnected are bounded by the access-token lifetime.
    private func watchEndedSessions(_ connection: NATSConnection) {
        let subscription: NATSSubscription? = endedSubscription.withLock { current in
            guard current == nil else { return nil }
            do {
                current = try connection.subscribe(Events.sessionEnded.subject)
            } catch {
                logger.warning("session.ended subscription failed; retrying on the next request", ["error": String(describing: error)])
            }
            return current
        }
        guard let subscription else { return }
        Task { [weak self] in
            for await message in subscription {
                guard let self else { return }
                do {
                    let event = try MessageCoding.decode(EventEnvelope<SessionEnded>.self, from: message.payload)
                    sessionsEnded([event.data.sessionId], tokensExpireAt: event.data.tokensExpireAt)
                } catch {
                    logger.warning("unreadable session.ended event ignored")
                }
            }
        }
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
