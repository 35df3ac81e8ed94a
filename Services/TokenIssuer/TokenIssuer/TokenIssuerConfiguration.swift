/// The token-issuer's settings.
public struct TokenIssuerConfiguration: Sendable {
    /// NATS server URL(s). Default `nats://127.0.0.1:4222`.
    public var natsURL: String = "nats://127.0.0.1:4222"
    /// PostgreSQL URL. Default `postgres://auth:auth@127.0.0.1:5432/auth`.
    public var databaseURL: String = "postgres://auth:auth@127.0.0.1:5432/auth"
    /// Database connections per replica. Default 8.
    public var databasePoolSize: Int = 8
    /// `iss` of access tokens (`TOKEN_ISSUER`). Default `http://localhost:8080`.
    public var issuer: String = "http://localhost:8080"
    /// `aud` of access tokens (`TOKEN_AUDIENCE`). Default `api`.
    public var audience: String = "api"
    /// Access-token lifetime (`ACCESS_TOKEN_TTL`). Default 900 s.
    public var accessTokenTTL: Duration = .seconds(900)
    /// Refresh-token (and idle session) lifetime (`REFRESH_TOKEN_TTL`). Default 30 days.
    public var refreshTokenTTL: Duration = .seconds(2_592_000)
    /// How long a rotated refresh token still yields the same successor (`REFRESH_REUSE_GRACE`). Default 10 s.
    public var refreshReuseGrace: Duration = .seconds(10)
    /// A PEM private key (P-256 or Ed25519) to sign with (`SIGNING_KEY_FILE`); nil: a key is generated and kept in the database.
    public var signingKeyFile: String?

    /// The defaults.
    public init() {}
}
