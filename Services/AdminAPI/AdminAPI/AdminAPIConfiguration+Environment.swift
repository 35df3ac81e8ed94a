import Logging
import Management
import Messaging
import Persistence
import Runtime

extension AdminAPIConfiguration {
    /// Reads the admin-api's variables (docs/configuration.md); throws naming the variable at fault. A tokens
    /// file that cannot be read or has a bad line stops it here, naming the line, never its text.
    public init(environment: EnvironmentReader) throws(ConfigurationError) {
        self.init()
        host = environment.string("ADMIN_HOST", default: host)
        port = try environment.int("ADMIN_PORT", default: port, in: 0...65_535)
        natsURL = try environment.urlList("NATS_URL", default: natsURL, schemes: ["nats", "tls"])
        natsAccess = try environment.natsAccess(for: .adminAPI)
        databaseURL = try environment.databaseURL(default: databaseURL)
        databasePoolSize = try environment.int("DATABASE_POOL_SIZE", default: databasePoolSize, in: 1...256)
        serviceTimeout = try environment.seconds("SERVICE_TIMEOUT", default: serviceTimeout, in: 1...60)
        auditRetentionDays = try environment.int("AUDIT_RETENTION_DAYS", default: auditRetentionDays, in: 1...36_500)
        auditMaxPerMember = try environment.int("AUDIT_MAX_PER_MEMBER", default: auditMaxPerMember, in: 100...10_000_000)
        auditMaxRecords = try environment.int("AUDIT_MAX_RECORDS", default: auditMaxRecords, in: 1_000...2_000_000_000)
        management = try environment.management(defaultPort: nil)
        events = try environment.eventStream()
        if let path = environment.optional("ADMIN_TOKENS_FILE") {
            do {
                _ = try AdminTokensFile(path: path, logger: Logger(label: "admin-api", level: .critical))
            } catch {
                throw ConfigurationError(variable: "ADMIN_TOKENS_FILE", problem: "\(error)")
            }
            tokensFile = path
        }
    }
}
