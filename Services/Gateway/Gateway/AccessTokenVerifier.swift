import Contracts
import Foundation
import JOSE
import JSON
import Logging
import Messaging
import Metrics
import Synchronization

/// Checks service access tokens locally against the issuer's key set (`IssuerKeys`), and remembers
/// tokens it has verified until they expire, so a client that sends the same token on every request
/// costs one signature check, not one per request. Tokens of ended sessions (`EndedSessions`) are
/// refused, remembered or not.
///
/// The remembered tokens are kept in expiry order, at most `maxCached`: beyond that the token that
/// expires first is forgotten (it costs one more signature check if it comes back).
final class AccessTokenVerifier: Sendable {
    /// The issuer's keys, followed while the gateway is connected to NATS.
    let keys: IssuerKeys
    /// The sessions whose tokens are refused.
    let endedSessions: EndedSessions
    private let issuer: String
    private let audience: String
    private let leeway: Int64
    private let verified: Mutex<ExpiringDictionary<String, AccessTokenClaims, Int64>>
    private let metrics: MetricsRegistry

    init(issuer: String, audience: String, leeway: Duration, maxCached: Int = 100_000, maxEndedSessions: Int = 500_000,
         logger: Logger, metrics: MetricsRegistry) {
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway.components.seconds
        self.keys = IssuerKeys(logger: logger)
        self.endedSessions = EndedSessions(capacity: maxEndedSessions, leeway: leeway.components.seconds, logger: logger, metrics: metrics)
        self.verified = Mutex(ExpiringDictionary(capacity: maxCached))
        self.metrics = metrics
        metrics.describeCounter("access_token_signature_checks_total",
                                "Access-token signatures checked; tokens remembered as verified or as issued cost none.")
        // Shown from the start at 0: a counter that appears only later reads as missing, not as none.
        metrics.increment("access_token_signature_checks_total", by: 0)
    }

    /// The claims of a valid access token, or `UNAUTHORIZED`.
    func verify(_ token: String, client: ServiceClient?, timeout: Duration) async throws(ServiceFailure) -> AccessTokenClaims {
        try await endedSessions.waitUntilRead(client: client, timeout: timeout)
        let now = Int64(Date().timeIntervalSince1970)
        if let claims = verified.withLock({ $0[token]?.value }) {
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
        let set = try await keys.keySet(for: jws.header.kid, client: client, timeout: timeout)
        let claims: AccessTokenClaims
        metrics.increment("access_token_signature_checks_total")
        do {
            try jws.verify(with: set, allowed: [.ES256, .EdDSA])
            claims = try MessageCoding.decode(AccessTokenClaims.self, from: jws.payload)
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

    /// Remembers an access token that the issuer has just handed out over NATS (a login or a refresh) as
    /// verified. It came through the same channel as the issuer's keys, so checking its signature would
    /// prove nothing more; the app's next requests with it, usually to this replica on the same connection,
    /// then cost no signature check.
    func rememberIssued(_ token: String) {
        guard let jws = try? CompactJWS.parse(token, maxLength: 4096),
              let claims = try? MessageCoding.decode(AccessTokenClaims.self, from: jws.payload),
              claims.iss == issuer, claims.aud == audience else { return }
        remember(token, claims, now: Int64(Date().timeIntervalSince1970))
    }

    /// Refuses the tokens of `sessionIds` from now on (until `expireAt`, or the fallback retention):
    /// the gateway calls this when a logout it forwarded ended them, before any event arrives.
    func sessionsEnded(_ sessionIds: [String], tokensExpireAt expireAt: Date? = nil) {
        endedSessions.end(sessionIds, tokensExpireAt: expireAt)
    }

    /// True once the issuer's keys were fetched and the ended sessions read: this gateway can check tokens.
    var isLoaded: Bool {
        keys.isLoaded && endedSessions.isRead
    }

    /// The tokens remembered as verified (some may have expired and not yet been dropped).
    var cachedCount: Int {
        verified.withLock { $0.count }
    }

    private func checkSessionLive(_ claims: AccessTokenClaims) throws(ServiceFailure) {
        if endedSessions.contains(claims.sid) {
            throw Self.unauthorized("The access token's session has ended; sign in again.")
        }
    }

    private func remember(_ token: String, _ claims: AccessTokenClaims, now: Int64) {
        verified.withLock { $0.update(claims, for: token, expiry: claims.exp, now: now) }
    }

    private static func unauthorized(_ message: String) -> ServiceFailure {
        ServiceFailure(.unauthorized, message)
    }
}
