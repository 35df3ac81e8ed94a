import Contracts
import Logging
import Messaging
import NATS
import Persistence
import Postgres
import Runtime

/// The member-service process: migrates the `member` schema, then answers its NATS endpoints.
public struct MemberServer: Service {
    private let configuration: MemberServiceConfiguration
    private let logger: Logger

    /// Creates the service; nothing connects until `run()`.
    public init(configuration: MemberServiceConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        var databaseConfiguration = try PostgresConfiguration(url: configuration.databaseURL)
        databaseConfiguration.poolSize = configuration.databasePoolSize
        databaseConfiguration.applicationName = "member-service"
        let database = PostgresClient(configuration: databaseConfiguration, logger: logger.named("postgres"))
        defer { Task { await database.close() } }
        try await database.migrateRetrying(schema: MemberMigrations.schema, migrations: MemberMigrations.all, logger: logger)

        let nats = try await NATSConnection.connectRetrying(url: configuration.natsURL, name: "member-service", logger: logger)
        let store = MemberStore(database: database)
                let services: [any Service] = [
            Responder.ping(connection: nats, queueGroup: QueueGroups.memberService, logger: logger),
            Responder(connection: nats, endpoint: Endpoints.memberLogin, queue: QueueGroups.memberService, logger: logger) { request in
                try Self.validate(request.identity)
                return try await store.login(request)
            },
            Responder(connection: nats, endpoint: Endpoints.memberGet, queue: QueueGroups.memberService, logger: logger) { request in
                guard let profile = try await store.profile(memberId: request.memberId) else {
                    throw ServiceFailure(.notFound, "No such member.")
                }
                return profile
            },
        ]
        logger.info("member-service ready")
        let discovery = ServiceDiscovery(connection: nats, name: QueueGroups.memberService,
                                         description: "Members and their linked provider identities", services: services, logger: logger)
        try await ServiceGroup(services: services + [discovery], logger: logger).run()
        await nats.drainAndClose()
    }

    private static func validate(_ identity: VerifiedIdentity) throws(ServiceFailure) {
        guard !identity.subject.isEmpty, identity.subject.utf8.count <= 255 else {
            throw .invalidRequest("The identity's subject must be 1 to 255 bytes.")
        }
    }
}
