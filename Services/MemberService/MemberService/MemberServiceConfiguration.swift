import Management
import Messaging
import NATS

/// The member-service's settings.
public struct MemberServiceConfiguration: Sendable {
    /// NATS server URL(s). Default `nats://127.0.0.1:4222`.
    public var natsURL: String = "nats://127.0.0.1:4222"
    /// How it signs in to NATS: its nkey, TLS (`NATS_NKEY_SEED_FILE`, `NATS_TLS_*`) and its own inbox prefix.
    public var natsAccess = NATSConnection.Access(inboxPrefix: BusIdentity.memberService.inboxPrefix)
    /// PostgreSQL URL. Default `postgres://auth:auth@127.0.0.1:5432/auth`.
    public var databaseURL: String = "postgres://auth:auth@127.0.0.1:5432/auth"
    /// Database connections per replica. Default 8.
    public var databasePoolSize: Int = 8
    /// How often the outbox is checked for events a failed publish or a dead replica left behind
    /// (new events are published at once). Default 1 s.
    public var outboxPollInterval: Duration = .seconds(1)

    /// The management port (`MANAGEMENT_PORT`, `MANAGEMENT_HOST`): `/metrics`, `/healthz`, `/readyz`. Default off.
    public var management = ManagementConfiguration()
    /// The limits the events stream is created with (`EVENTS_MAX_AGE`, `EVENTS_REPLICAS`).
    public var events = EventStreamSettings()
    /// How far in the future an access token's `iat` may be (`CLOCK_SKEW`): the clock skew allowed when the
    /// member-service checks the token a member-scoped request carries.
    public var clockSkew: Duration = .seconds(60)
    /// How long after a provider sign-in an access token may link or unlink an identity or delete the member
    /// (`REAUTHENTICATION_WINDOW`, RFC 9470). Default 300 s.
    public var reauthenticationWindow: Duration = .seconds(300)
    /// How long a call to the token-issuer may take (a deletion's or an unlink's ended sessions, the keys).
    public var issuerTimeout: Duration = .seconds(2)

    /// The defaults.
    public init() {}
}
