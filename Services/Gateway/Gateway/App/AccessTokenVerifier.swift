import Authentication
import Collections
import Contracts
import Foundation
import JOSE
import JSON
import Logging
import Messaging
import Metrics

/// Answers "whose is this access token?" for the gateway, from its parts, each with one job: the
/// ``Gate`` (wait until the ended sessions are read), the ``VerifiedTokens`` cache, the
/// ``AccessTokenCheck`` (signature and claims) against the ``IssuerKeys`` copy, and the ``EndedSessions``
/// list, which an adapter (`EndedSessionsFollower`, wired by `GatewayServer`) fills from `session.ended` and
/// the issuer's list of ended sessions, opening ``caughtUp`` once it read that list.
final class AccessTokenVerifier: Sendable {
    /// The issuer's keys, followed while the gateway is connected to NATS.
    let keys: IssuerKeys
    /// The sessions whose tokens are refused.
    let endedSessions: EndedSessions
    /// Opens once the issuer's ended sessions have been read.
    let caughtUp: Gate
    private let check: AccessTokenCheck
    private let verified: VerifiedTokens
    private let metrics: MetricsRegistry

    init(issuer: String, audience: String, leeway: Duration, maxCached: Int = 100_000, maxEndedSessions: Int = 500_000,
         logger: Logger, metrics: MetricsRegistry) {
        self.check = AccessTokenCheck(issuer: issuer, audience: audience, leeway: leeway.components.seconds)
        self.keys = IssuerKeys(logger: logger)
        self.endedSessions = EndedSessions(capacity: maxEndedSessions, leeway: leeway.components.seconds, logger: logger, metrics: metrics)
        self.verified = VerifiedTokens(capacity: maxCached)
        self.caughtUp = Gate()
        self.metrics = metrics
        metrics.describeCounter("access_token_signature_checks_total",
                                "Access-token signatures checked; tokens remembered as verified or as issued cost none.")
        // Shown from the start at 0: a counter that appears only later reads as missing, not as none.
        metrics.increment("access_token_signature_checks_total", by: 0)
    }

    /// The claims of a valid access token, or `UNAUTHORIZED`; 503 while the ended sessions are not read.
    func verify(_ token: String, client: (any ServiceCalling)?, timeout: Duration) async throws(ServiceFailure) -> AccessTokenClaims {
        try await waitUntilCaughtUp(client: client, timeout: timeout)
        let now = Int64(Date().timeIntervalSince1970)
        // Remembered, and the key that signed it still published (a key gone from the issuer's set, say a
        // leaked one, takes its tokens with it, whatever expiry they claim): no signature check.
        if let entry = verified.entry(for: token), keys.has(kid: entry.kid) {
            try check.checkNotExpired(entry.claims, now: now)
            try checkSessionLive(entry.claims)
            return entry.claims
        }
        let jws = try AccessTokenCheck.parse(token)
        let set = try await keys.keySet(for: jws.header.kid, client: client, timeout: timeout)
        metrics.increment("access_token_signature_checks_total")
        let claims = try check.claims(of: jws, keys: set, now: now)
        try checkSessionLive(claims)
        verified.remember(token, claims, kid: jws.header.kid, now: now)
        return claims
    }

    /// Remembers an access token that the issuer has just handed out over NATS (a login or a refresh) as
    /// verified. It came through the same channel as the issuer's keys, so checking its signature would
    /// prove nothing more; the app's next requests with it, usually to this replica on the same connection,
    /// then cost no signature check.
    ///
    /// The issuer sends the token's claims and `kid` with it (``TokenPair/claims``), so the token is not
    /// parsed back when they are this deployment's, name the pair's session and member, and come with a
    /// `kid` (key revocation finds remembered tokens by it); otherwise (an older issuer) the token is parsed.
    func rememberIssued(_ tokens: TokenPair) {
        let issued: (claims: AccessTokenClaims, kid: String?)
        if let claims = tokens.claims, let kid = tokens.keyId, check.isOurs(claims), claims.sid == tokens.sessionId,
           claims.sub == String(tokens.memberId), tokens.accessToken.utf8.count <= AccessTokenCheck.maxLength {
            issued = (claims, kid)
        } else if let parsed = check.claims(ofIssued: tokens.accessToken) {
            issued = parsed
        } else {
            return
        }
        verified.remember(tokens.accessToken, issued.claims, kid: issued.kid, now: Int64(Date().timeIntervalSince1970))
    }

    /// Refuses the tokens of `sessionIds` from now on (until `expireAt`, or the fallback retention):
    /// the gateway calls this when a logout it forwarded ended them, before any event arrives.
    func sessionsEnded(_ sessionIds: [String], tokensExpireAt expireAt: Date? = nil) {
        endedSessions.end(sessionIds, tokensExpireAt: expireAt)
    }

    /// True once the issuer's keys were fetched and the ended sessions read: this gateway can check tokens.
    var isLoaded: Bool {
        keys.isLoaded && caughtUp.isOpen
    }

    /// The tokens remembered as verified (some may have expired and not yet been dropped).
    var cachedCount: Int {
        verified.count
    }

    /// Returns once the issuer's ended sessions have been read, or throws 503 when that takes longer than
    /// `timeout` (a gateway that has just started while no issuer answers) or NATS is not connected.
    private func waitUntilCaughtUp(client: (any ServiceCalling)?, timeout: Duration) async throws(ServiceFailure) {
        if caughtUp.isOpen { return }
        guard client != nil else { throw ServiceFailure.unavailable }  // Not connected to NATS yet.
        guard await caughtUp.wait(timeout: timeout) else {
            throw ServiceFailure(.serviceUnavailable, "The gateway is still reading which sessions have ended; retry shortly.")
        }
    }

    private func checkSessionLive(_ claims: AccessTokenClaims) throws(ServiceFailure) {
        if let reason = endedSessions.refuses(claims) {
            throw AccessTokenCheck.unauthorized(reason)
        }
    }
}
