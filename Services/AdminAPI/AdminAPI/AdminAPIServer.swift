import Contracts
import Foundation
import HTTPAPI
import HTTPServer
import Logging
import Management
import Messaging
import Metrics
import NATS
import Persistence
import Postgres
import Runtime
import Synchronization

/// The admin-api process: the operators' HTTP API on its own port, and the audit trail.
///
/// One group of named services: `management`, `postgres` and `nats` (opened inside the group, closed after
/// everything else), then the `migrations` prelude (the `audit` schema), after which come `http` (the admin
/// port), `admin-tokens` (the tokens file followed), `audit-sweep` (retention and caps) and, behind its
/// stream set-up (`event-stream`), the audit trail's consumer. Without `ADMIN_TOKENS_FILE` it is off: it
/// logs so and returns at once, serving nothing.
public struct AdminAPIServer: Service {
    private let configuration: AdminAPIConfiguration
    private let logger: Logger
    private let onListening: @Sendable (Int) -> Void

    /// Creates the service; nothing connects until `run()`. `onListening` is told the bound admin port.
    public init(configuration: AdminAPIConfiguration, logger: Logger, onListening: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.configuration = configuration
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        // Without admins, no admin port; the audit trail is written all the same (it never waits for operators).
        let tokens = try configuration.tokensFile.map { try AdminTokensFile(path: $0, logger: logger) }
        if let tokens {
            logger.info("admin tokens file read", ["admins": String(tokens.tokens.count)])
        } else {
            logger.notice("the admin API is off (ADMIN_TOKENS_FILE is not set); the audit trail is written all the same")
        }
        let readiness = Readiness()
        let metrics = MetricsRegistry()
        let management = ManagementServer(configuration: configuration.management, metrics: metrics, readiness: readiness, logger: logger)
        let database = ResourceService.database(url: configuration.databaseURL, poolSize: configuration.databasePoolSize,
                                                applicationName: "admin-api", logger: logger)
        let nats = ResourceService.nats(url: configuration.natsURL, access: configuration.natsAccess, name: "admin-api", logger: logger)
        let migrations = ClosurePrelude("migrations") { [configuration, logger, onListening] in
            let database = try await database.value
            try await database.migrateRetrying(schema: AuditMigrations.schema, migrations: AuditMigrations.all, logger: logger)
            let connection = try await nats.value
            let store = AuditStore(database: database)
            let client = ServiceClient(connection: connection, logger: logger, metrics: metrics)
            let actions = AdminActions(audit: store, services: { client }, timeout: configuration.serviceTimeout,
                                       statusOf: { $0.httpStatus }, logger: logger)
            readiness.require("nats") { connection.isConnected }
            var api: [any Service] = []
            if let tokens {
                let handler = AdminHandler(actions: actions, admins: { tokens.tokens },
                                           maxExportRecords: min(configuration.auditMaxPerMember, AdminAPIConfiguration.maxExportRecords),
                                           logger: logger, metrics: metrics)
                let server = Self.httpServer(configuration, handler: handler, logger: logger)
                readiness.require("http") { server.port != 0 }
                api = [
                    ClosureService("http") {
                        try server.start()
                        logger.info("admin-api listening", ["http.host": configuration.host, "http.port": String(server.port)])
                        onListening(server.port)
                        try await server.run()
                    },
                    Self.tokensReload(tokens, every: configuration.tokensReloadInterval),
                ]
            }
            readiness.started()
            var events: [any Service] = []
            if configuration.consumesEvents {
                events.append(AuditEventsConsumer.make(connection: connection, repository: store, metrics: metrics,
                                                       logger: logger.named("audit")))
            }
            return api + [
                Self.sweep(store, configuration: configuration, logger: logger),
                // The consumer waits for the stream (a JetStream cluster may be electing a leader); the API serves meanwhile.
                EventStreamServices(connection: connection, settings: configuration.events, services: events, logger: logger),
            ]
        }
        try await ServiceGroup(services: [management, database, nats, migrations], logger: logger).run()
    }

    private static func httpServer(_ configuration: AdminAPIConfiguration, handler: AdminHandler, logger: Logger) -> HTTPServer {
        var http = HTTPServer.Configuration()
        http.host = configuration.host
        http.port = configuration.port
        http.maxBodySize = configuration.maxBodySize
        http.threads = configuration.httpThreads
        return HTTPServer(configuration: http, logger: logger.named("http")) { request in
            await handler.handle(request)
        }
    }

    /// Reads the tokens file every `interval`, taking it when it changed.
    private static func tokensReload(_ tokens: AdminTokensFile, every interval: Duration) -> any Service {
        ClosureService("admin-tokens") {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                tokens.reload()
            }
        }
    }

    /// Deletes what the retention and the caps no longer allow, every `auditSweepInterval`, one replica at a time.
    private static func sweep(_ store: AuditStore, configuration: AdminAPIConfiguration, logger: Logger) -> any Service {
        ClosureService("audit-sweep") {
            while !Task.isCancelled {
                do {
                    let deleted = try await store.sweep(configuration.auditLimits)
                    if deleted > 0 { logger.info("audit records past retention or caps deleted", ["rows.deleted": String(deleted)]) }
                } catch {
                    logger.warning("audit sweep failed", ["error": String(describing: error)])
                }
                try await Task.sleep(for: configuration.auditSweepInterval)
            }
        }
    }
}
