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

    /// Creates claims.
    public init(iss: String, aud: String, sub: String, sid: String, iat: Int64, exp: Int64, jti: String) {
        self.iss = iss
        self.aud = aud
        self.sub = sub
        self.sid = sid
        self.iat = iat
        self.exp = exp
        self.jti = jti
    }
}
