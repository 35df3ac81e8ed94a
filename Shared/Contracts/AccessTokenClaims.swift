/// The claims of a service access token (docs/api.md): signed by the token-issuer,
/// checked by the gateway.
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    /// The issuer (`TOKEN_ISSUER`).
    public var iss: String
    /// The audience (`TOKEN_AUDIENCE`).
    public var aud: String
    /// The member ID, as a string.
    public var sub: String
    /// The session ID.
    public var sid: String
    /// Issued at (seconds since 1970).
    public var iat: Int64
    /// Expires at (seconds since 1970).
    public var exp: Int64
    /// A unique token ID.
    public var jti: String
    /// When the session's provider sign-in happened (seconds since 1970, `auth_time` of OpenID Connect and
    /// RFC 9470), unchanged through every refresh of the session; nil in tokens of a release before it.
    public var authTime: Int64?

    /// Creates claims.
    public init(iss: String, aud: String, sub: String, sid: String, iat: Int64, exp: Int64, jti: String, authTime: Int64? = nil) {
        self.iss = iss
        self.aud = aud
        self.sub = sub
        self.sid = sid
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.authTime = authTime
    }

    private enum CodingKeys: String, CodingKey {
        case iss, aud, sub, sid, iat, exp, jti
        case authTime = "auth_time"
    }
}
