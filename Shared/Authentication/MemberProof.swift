import Contracts
import Foundation
import JOSE

/// The check a service that owns a member's data makes of the access token a member-scoped request
/// carries (SPEC section 9: a member ID alone never acts on a member): the signature against the issuer's
/// published keys, `iss`, `aud`, `exp`, `iat`, and `sub` equal to the member acted on. Whoever sends the
/// request, the gateway included, acts only with the member's own token.
///
/// Tokens it verified are remembered until they expire (at most `capacity`), by the SHA-256 of their text,
/// so an app that sends the same token on every request costs one signature check; so are the tokens the
/// issuer noted as issued to a login this service handed on (``rememberIssued(_:now:)``). A remembered token
/// counts only while the key that signed it is still published, and with the `iss` and `aud` expected.
public final class MemberProof: Sendable {
    /// The keys to check a token naming `kid` against, with the `iss` and `aud` the tokens must carry.
    public typealias Keys = @Sendable (_ kid: String?) async throws(ServiceFailure) -> TrustedKeys

    /// What tokens are checked against.
    public struct TrustedKeys: Sendable {
        /// The issuer's published keys.
        public let set: VerificationKeySet
        /// The `iss` its tokens carry.
        public let issuer: String
        /// The `aud` its tokens carry.
        public let audience: String

        /// Creates one.
        public init(set: VerificationKeySet, issuer: String, audience: String) {
            self.set = set
            self.issuer = issuer
            self.audience = audience
        }
    }

    private let keys: Keys
    private let leeway: Int64
    private let verified: VerifiedTokens

    /// A check against the keys `keys` gives, allowing `leeway` of clock skew on `iat`.
    public init(leeway: Duration, capacity: Int = 100_000, keys: @escaping Keys) {
        self.keys = keys
        self.leeway = leeway.components.seconds
        self.verified = VerifiedTokens(capacity: capacity)
    }

    /// The claims of `token` when it is a valid access token of member `memberId`; otherwise `UNAUTHORIZED`.
    @discardableResult
    public func claims(of token: String, memberId: Int64) async throws(ServiceFailure) -> AccessTokenClaims {
        guard memberId > 0 else { throw ServiceFailure.invalidRequest("memberId must be positive.") }
        let now = Int64(Date().timeIntervalSince1970)
        let claims: AccessTokenClaims
        let key = IssuedTokenNote.key(of: token)
        if let entry = verified.entry(for: key), try await Self.stillTrusted(entry, by: keys(entry.kid)) {
            guard entry.claims.exp > now else { throw AccessTokenCheck.unauthorized("The access token has expired.") }
            claims = entry.claims
        } else {
            let jws = try AccessTokenCheck.parse(token)
            let trusted = try await keys(jws.header.kid)
            claims = try await Self.check(jws, trusted: trusted, leeway: leeway, now: now)
            verified.remember(key, claims, kid: jws.header.kid, now: now)
        }
        guard claims.sub == String(memberId) else {
            throw AccessTokenCheck.unauthorized("The access token is not this member's.")
        }
        return claims
    }

    /// Remembers the access token that the issuer's answer in `headers` notes as issued (``IssuedTokenNote``),
    /// when it has not expired by `now` (seconds since 1970). A hop of a login calls this with the answer it
    /// passes back; headers without a note change nothing.
    public func rememberIssued(_ headers: [String: String], now: Int64 = Int64(Date().timeIntervalSince1970)) {
        guard let note = IssuedTokenNote.read(headers), note.claims.exp > now else { return }
        verified.remember(note.key, note.claims, kid: note.kid, now: now)
    }

    /// Whether a remembered token still counts: the key that signed it is published, and it names the
    /// issuer and audience the keys are for.
    private static func stillTrusted(_ entry: VerifiedTokens.Entry, by trusted: TrustedKeys) -> Bool {
        trusted.set.key(for: entry.kid) != nil && entry.claims.iss == trusted.issuer && entry.claims.aud == trusted.audience
    }

    /// The signature check, on Swift's pool: a responder's handler starts on the NATS delivery thread, which
    /// must not compute a signature for every request of its endpoint in turn.
    @concurrent
    private static func check(_ jws: CompactJWS, trusted: TrustedKeys, leeway: Int64, now: Int64) async throws(ServiceFailure) -> AccessTokenClaims {
        try AccessTokenCheck(issuer: trusted.issuer, audience: trusted.audience, leeway: leeway).claims(of: jws, keys: trusted.set, now: now)
    }
}
