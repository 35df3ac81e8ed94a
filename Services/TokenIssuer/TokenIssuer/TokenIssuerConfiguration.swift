import Management
import Messaging
import NATS
/// The token-issuer's settings.
public struct TokenIssuerConfiguration: Sendable {
    /// NATS server URL(s). Default `nats://127.0.0.1:4222`.
    public var natsURL: String = "nats://127.0.0.1:4222"
    /// How it signs in to NATS: its nkey, TLS (`NATS_NKEY_SEED_FILE`, `NATS_TLS_*`) and its own inbox prefix.
    public var natsAccess = NATSConnection.Access(inboxPrefix: BusIdentity.tokenIssuer.inboxPrefix)
    /// PostgreSQL URL. Default `postgres://auth:auth@127.0.0.1:5432/auth`.
    public var databaseURL: String = "postgres://auth:auth@127.0.0.1:5432/auth"
    /// Database connections per replica. Default 8.
    public var databasePoolSize: Int = 8
    /// `iss` of access tokens (`TOKEN_ISSUER`). Default `http://localhost:8080`.
    public var issuer: String = "http://localhost:8080"
    /// `aud` of access tokens (`TOKEN_AUDIENCE`). Default `api`.
    public var audience: String = "api"
    /// How far in the future the `iat` of an access token a session command carries may be (`CLOCK_SKEW`). Default 60 s.
    public var clockSkew: Duration = .seconds(60)
    /// Access-token lifetime (`ACCESS_TOKEN_TTL`). Default 900 s.
    public var accessTokenTTL: Duration = .seconds(900)
    /// Refresh-token (and idle session) lifetime (`REFRESH_TOKEN_TTL`). Default 30 days.
    public var refreshTokenTTL: Duration = .seconds(2_592_000)
    /// How long a rotated refresh token still yields the same successor (`REFRESH_REUSE_GRACE`). Default 10 s.
    public var refreshReuseGrace: Duration = .seconds(10)
    /// PEM private keys (P-256 or Ed25519) to sign with (`SIGNING_KEY_FILE`: files, or directories of `*.pem`
    /// files); nil: keys are generated and kept in the database. A key first seen in a file is published at
    /// once and signs from `signingKeyPublishLead` later, replacing the key before it.
    public var signingKeyFiles: [String]?
    /// The keys refresh tokens are MACed with (`REFRESH_TOKEN_KEY_FILE`: files, or directories of `*.key` files, of
    /// at least 32 bytes each; every one verifies, the last signs); nil: one key is generated and kept in the
    /// database (development: a copy of the database then makes tokens).
    public var refreshTokenKeyFiles: [String]?
    /// How long a signing key signs before the next one takes over (`SIGNING_KEY_ROTATION`); zero:
    /// only forced rotations (`auth.issuer.rotate-keys`). Default 30 days. Keys from files rotate when a
    /// new file is added instead.
    public var signingKeyRotation: Duration = .seconds(2_592_000)
    /// How long the next key is published in the JWKS before it signs (`SIGNING_KEY_PUBLISH_LEAD`): at least
    /// as long as anyone caches the JWKS (the gateway's `/.well-known/jwks.json` says `max-age=300`). Default 600 s.
    public var signingKeyPublishLead: Duration = .seconds(600)
    /// How often every replica reloads the signing keys (and reads the key files). Default 30 s.
    public var signingKeyReloadInterval: Duration = .seconds(30)
    /// How often the event outbox is read for rows no commit signalled (`OUTBOX_POLL_INTERVAL`). Default 1 s.
    public var outboxPollInterval: Duration = .seconds(1)
    /// How often expired sessions and refresh tokens are deleted. Default 60 s.
    public var cleanupInterval: Duration = .seconds(60)
    /// Whether this replica consumes `member.deleted` and `identity.unlinked` to end sessions. Default true;
    /// false makes a replica that only answers requests (tests use one as a stand-in while the others are down).
    public var consumesEvents: Bool = true

    /// The management port (`MANAGEMENT_PORT`, `MANAGEMENT_HOST`): `/metrics`, `/healthz`, `/readyz`. Default off.
    public var management = ManagementConfiguration()
    /// The limits the events stream is created with (`EVENTS_MAX_AGE`, `EVENTS_REPLICAS`).
    public var events = EventStreamSettings()

    /// The defaults.
    public init() {}
}
