/// The member-service's settings.
public struct MemberServiceConfiguration: Sendable {
    /// NATS server URL(s). Default `nats://127.0.0.1:4222`.
    public var natsURL: String = "nats://127.0.0.1:4222"
    /// PostgreSQL URL. Default `postgres://auth:auth@127.0.0.1:5432/auth`.
    public var databaseURL: String = "postgres://auth:auth@127.0.0.1:5432/auth"
    /// Database connections per replica. Default 8.
    public var databasePoolSize: Int = 8

    /// The defaults.
    public init() {}
}
