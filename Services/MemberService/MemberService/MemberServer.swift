import Contracts
import Logging
import Management
import Metrics
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
        try await ManagementServer.serving(configuration.management, logger: logger) { try await serve($0, metrics: $1) }
    }

    /// The pool and the NATS connection are services of the group, opened inside it and closed after
    /// everything else stopped; the migrations and the stream set-up are preludes of the member-service's
    /// own services, so a signal stops it in any state and `/readyz` stays 503 until they are done.
    private func serve(_ readiness: Readiness, metrics: MetricsRegistry) async throws {
        let database = ResourceService.database(url: configuration.databaseURL, poolSize: configuration.databasePoolSize,
                                                applicationName: "member-service", logger: logger)
        let nats = ResourceService.nats(url: configuration.natsURL, access: configuration.natsAccess, name: "member-service", logger: logger)
        let members = ClosureService {
            try await serve(database: try await database.value, nats: try await nats.value, readiness: readiness)
        }
        try await ServiceGroup(services: [database, nats, members], logger: logger).run()
    }

    private func serve(database: PostgresClient, nats: NATSConnection, readiness: Readiness) async throws {
        try await database.migrateRetrying(schema: MemberMigrations.schema, migrations: MemberMigrations.all,
                                      functions: MemberMigrations.functions, logger: logger)
        await EventPublisher(connection: nats, logger: logger).ensureStreamRetrying(configuration.events)
        try Task.checkCancellation()
        let outbox = Outbox.memberEvents(database: database, connection: nats, pollInterval: configuration.outboxPollInterval,
                                         logger: logger.named("outbox"))
        let store = MemberStore(database: database, outbox: outbox.wakeup)
        let queue = QueueGroups.memberService
        let services: [any Service] = [
            outbox,
            Responder.ping(connection: nats, queueGroup: queue, logger: logger),
            Responder(connection: nats, endpoint: Endpoints.memberLogin, queue: queue, logger: logger) { request in
                try Self.validate(request.identity)
                return try await store.login(request)
            },
            Responder(connection: nats, endpoint: Endpoints.memberGet, queue: queue, logger: logger) { request in
                guard let profile = try await store.profile(memberId: request.memberId) else {
                    throw ServiceFailure(.notFound, "No such member.")
                }
                return profile
            },
            Responder(connection: nats, endpoint: Endpoints.memberLinkIdentity, queue: queue, logger: logger) { request in
                try Self.validate(request.identity)
                let profile = try await store.link(request)
                logger.info("identity linked", ["member.id": String(request.memberId), "identity.provider": request.identity.provider.rawValue])
                return profile
            },
            Responder(connection: nats, endpoint: Endpoints.memberUnlinkIdentity, queue: queue, logger: logger) { request in
                let profile = try await store.unlink(request)
                logger.info("identity unlinked", ["member.id": String(request.memberId), "identity.provider": request.provider.rawValue])
                return profile
            },
            Responder(connection: nats, endpoint: Endpoints.memberDelete, queue: queue, logger: logger) { request in
                let deleted = try await store.delete(memberId: request.memberId, reason: "requested")
                if deleted { logger.info("member deleted", ["member.id": String(request.memberId)]) }
                return MemberDeleteReply(memberId: request.memberId, deleted: deleted)
            },
            Responder(connection: nats, endpoint: Endpoints.memberAppleNotification, queue: queue, logger: logger) { notification in
                try Self.validate(notification)
                let outcome = try await store.handle(notification)
                logger.info("apple notification handled",
                            ["apple.event": notification.type, "member.id": outcome.memberId.map(String.init) ?? "none",
                             "identity.ended": String(outcome.identityEnded), "member.deleted": String(outcome.memberDeleted)])
                return outcome
            },
        ]
        readiness.require(nats: nats, endpoints: services)
        readiness.started()
        logger.info("member-service ready")
        let discovery = ServiceDiscovery(connection: nats, name: QueueGroups.memberService,
                                         description: "Members and their linked provider identities", services: services, logger: logger)
        try await ServiceGroup(services: services + [discovery], logger: logger).run()
    }

    private static func validate(_ identity: VerifiedIdentity) throws(ServiceFailure) {
        guard !identity.subject.isEmpty, identity.subject.utf8.count <= 255 else {
            throw .invalidRequest("The identity's subject must be 1 to 255 bytes.")
        }
    }

    private static func validate(_ notification: AppleNotification) throws(ServiceFailure) {
        guard !notification.subject.isEmpty, notification.subject.utf8.count <= 255 else {
            throw .invalidRequest("The notification's subject must be 1 to 255 bytes.")
        }
        guard !notification.type.isEmpty, notification.type.utf8.count <= 64 else {
            throw .invalidRequest("The notification's type must be 1 to 64 bytes.")
        }
        guard (1...255).contains(notification.jti.utf8.count) else {
            throw .invalidRequest("The notification's jti must be 1 to 255 bytes.")
        }
    }
}
