import Contracts
import JOSE
import JSON

/// The check of one service access token against the issuer's keys: the signature (ES256 or EdDSA), the
/// issuer and audience, and the times. Pure: no cache, no network, no ended sessions.
public struct AccessTokenCheck: Sendable {
    /// The longest access token read, in bytes.
    public static let maxLength = 4096

    /// The `iss` the tokens must carry (`TOKEN_ISSUER`).
    public let issuer: String
    /// The `aud` the tokens must carry (`TOKEN_AUDIENCE`).
    public let audience: String
    /// How far in the future `iat` may be (seconds): the clock skew allowed.
    public let leeway: Int64

    /// A check for tokens of `issuer` for `audience`, allowing `leeway` seconds of clock skew.
    public init(issuer: String, audience: String, leeway: Int64) {
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
    }

    /// `token` split into its parts, or 401 when it is not a compact JWS.
    public static func parse(_ token: String) throws(ServiceFailure) -> CompactJWS {
        do {
            return try CompactJWS.parse(token, maxLength: Self.maxLength)
        } catch {
            throw Self.unauthorized("The access token is malformed.")
        }
    }

    /// The claims of `jws` when its signature verifies with `keys` and its claims are for this service and
    /// current at `now` (seconds since 1970); else 401 saying which.
    public func claims(of jws: CompactJWS, keys: VerificationKeySet, now: Int64) throws(ServiceFailure) -> AccessTokenClaims {
        let claims: AccessTokenClaims
        do {
            try jws.verify(with: keys, allowed: [.ES256, .EdDSA])
            claims = try MessageCoding.decode(AccessTokenClaims.self, from: jws.payload)
        } catch {
            throw Self.unauthorized("The access token is not valid.")
        }
        guard isOurs(claims) else { throw Self.unauthorized("The access token is not for this service.") }
        try checkNotExpired(claims, now: now)
        guard claims.iat <= now + leeway else { throw Self.unauthorized("The access token is not valid yet.") }
        return claims
    }

    /// The claims and `kid` of a token the issuer has just handed out, read without checking its signature
    /// (it came over the same channel as the issuer's keys), or nil when it is not one of this service's tokens.
    public func claims(ofIssued token: String) -> (claims: AccessTokenClaims, kid: String?)? {
        guard let jws = try? CompactJWS.parse(token, maxLength: Self.maxLength),
              let claims = try? MessageCoding.decode(AccessTokenClaims.self, from: jws.payload),
              isOurs(claims) else { return nil }
        return (claims, jws.header.kid)
    }

    /// 401 when `claims` expired at or before `now`.
    public func checkNotExpired(_ claims: AccessTokenClaims, now: Int64) throws(ServiceFailure) {
        guard claims.exp > now else { throw Self.unauthorized("The access token has expired.") }
    }

    /// Whether `claims` name this deployment as issuer and audience.
    public func isOurs(_ claims: AccessTokenClaims) -> Bool {
        claims.iss == issuer && claims.aud == audience
    }

    /// The 401 `UNAUTHORIZED` failure with `message`.
    public static func unauthorized(_ message: String) -> ServiceFailure {
        ServiceFailure(.unauthorized, message)
    }
}
