import Management
import Messaging
import NATS

/// The admin-api's settings (docs/configuration.md, "admin-api").
public struct AdminAPIConfiguration: Sendable {
    /// Address the admin port listens on (`ADMIN_HOST`). Default `127.0.0.1`: reachable from this machine
    /// only unless an operator says otherwise.
    public var host: String = "127.0.0.1"
    /// The admin port (`ADMIN_PORT`); 0 picks a free one. Default 8081.
    public var port: Int = 8081
    /// The admins' tokens file (`ADMIN_TOKENS_FILE`, `name:sha256-hex-of-token` a line). Nil: the admin-api
    /// is off (it logs so and exits at once).
    public var tokensFile: String?
    /// How often the tokens file is looked at for a change. Default 2 s.
    public var tokensReloadInterval: Duration = .seconds(2)
    /// NATS server URL(s). Default `nats://127.0.0.1:4222`.
    public var natsURL: String = "nats://127.0.0.1:4222"
    /// How it signs in to NATS: its nkey, TLS (`NATS_NKEY_SEED_FILE`, `NATS_TLS_*`) and its own inbox prefix.
    public var natsAccess = NATSConnection.Access(inboxPrefix: BusIdentity.adminAPI.inboxPrefix)
    /// PostgreSQL URL (as the role `admin_api`, schema `audit`). Default `postgres://auth:auth@127.0.0.1:5432/auth`.
    public var databaseURL: String = "postgres://auth:auth@127.0.0.1:5432/auth"
    /// Database connections per replica (`DATABASE_POOL_SIZE`). Default 8.
    public var databasePoolSize: Int = 8
    /// How long one call to a service may take (`SERVICE_TIMEOUT`). Default 5 s.
    public var serviceTimeout: Duration = .seconds(5)
    /// Days an audit record is kept (`AUDIT_RETENTION_DAYS`). Default 365.
    public var auditRetentionDays: Int = 365
    /// Audit records kept per member, the newest (`AUDIT_MAX_PER_MEMBER`). Default 10,000.
    public var auditMaxPerMember: Int = 10_000
    /// The most audit records an export holds (the newest): it is built in memory, within the service's 256 MiB.
    public static let maxExportRecords = 20_000
    /// Audit records kept in all, the newest (`AUDIT_MAX_RECORDS`). Default 10,000,000.
    public var auditMaxRecords: Int = 10_000_000
    /// How often the retention sweep runs (one replica at a time). Default 5 minutes.
    public var auditSweepInterval: Duration = .seconds(300)
    /// Whether this replica feeds the audit trail from the event stream (tests turn it off). Default true.
    public var consumesEvents = true
    /// Largest request body. Default 64 KiB.
    public var maxBodySize: Int = 65_536
    /// HTTP worker threads. Default 1: operators, not the internet.
    public var httpThreads: Int = 1
    /// The event stream's settings, applied when the admin-api is the one that creates it (`EVENTS_*`).
    public var events = EventStreamSettings()
    /// The management port (`MANAGEMENT_PORT`, off unless set; `MANAGEMENT_HOST`).
    public var management = ManagementConfiguration()

    /// The defaults.
    public init() {}

    /// The audit trail's limits.
    public var auditLimits: AuditLimits {
        AuditLimits(retentionDays: auditRetentionDays, maxPerMember: auditMaxPerMember, maxRecords: auditMaxRecords)
    }
}
