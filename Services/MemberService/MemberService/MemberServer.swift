import Authentication
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

    /// One group of named services: `management`, `postgres` and `nats` (opened inside the group and closed
    /// after everything else stopped), then the `migrations` prelude, which the member-service's own
    /// services follow once the schema is migrated, so a signal stops it in any state and `/readyz` stays 503
    /// until they are done. The stream set-up (`event-stream`) is the outbox's prelude only: the endpoints
    /// serve while JetStream is down, the events wait in the outbox.
    public func run() async throws {
        let readiness = Readiness()
        let management = ManagementServer(configuration: configuration.management, metrics: MetricsRegistry(), readiness: readiness,
                                          logger: logger)
        let database = ResourceService.database(url: configuration.databaseURL, poolSize: configuration.databasePoolSize,
                                                applicationName: "member-service", logger: logger)
        let nats = ResourceService.nats(url: configuration.natsURL, access: configuration.natsAccess, name: "member-service", logger: logger)
        let migrations = ClosurePrelude("migrations") {
            let database = try await database.value
            try await database.migrateRetrying(schema: MemberMigrations.schema, migrations: MemberMigrations.all,
                                               functions: MemberMigrations.functions, logger: logger)
            return services(database: database, nats: try await nats.value, readiness: readiness)
        }
        try await ServiceGroup(services: [management, database, nats, migrations], logger: logger).run()
    }

    /// The services that follow the migrations: the outbox behind its stream set-up, the issuer's keys, the
    /// nonces' sweep, the endpoints and service discovery.
    private func services(database: PostgresClient, nats: NATSConnection, readiness: Readiness) -> [any Service] {
        let outbox = Outbox.memberEvents(database: database, connection: nats, pollInterval: configuration.outboxPollInterval,
                                         logger: logger.named("outbox"))
        let issuer = ServiceClient(connection: nats, logger: logger)
        let timeout = configuration.issuerTimeout
        // The issuer's keys, to check the access token each member-scoped request carries; its answer names
        // the `iss` and `aud` too, and only the token-issuer's identity can answer on this inbox.
        let keys = IssuerKeys(logger: logger)
        let proof = MemberProof(leeway: configuration.clockSkew) { kid throws(ServiceFailure) in
            let snapshot = try await keys.snapshot(for: kid, client: issuer, timeout: timeout)
            return MemberProof.TrustedKeys(set: snapshot.set, issuer: snapshot.issuer, audience: snapshot.audience)
        }
        let store = MemberStore(database: database, outbox: outbox.wakeup)
        let members = MemberHandlers(members: store, proof: proof, issuer: issuer,
                                     issuerTimeout: timeout, recentSignIn: RecentSignIn(window: configuration.reauthenticationWindow),
                                     logger: logger)
        let queue = QueueGroups.memberService
        let services: [any Service] = [
            Responder.ping(connection: nats, queueGroup: queue, logger: logger),
            // The issuer's answer notes the access token it issued: the app's first call after its login
            // (its profile, as a rule) then costs no signature check here.
            Responder(connection: nats, endpoint: Endpoints.memberLogin, queue: queue, logger: logger,
                      handedBack: { proof.rememberIssued($0.headers) }, relaying: members.login),
            Responder(connection: nats, endpoint: Endpoints.memberGet, queue: queue, logger: logger, handler: members.profile),
            Responder(connection: nats, endpoint: Endpoints.memberUpdate, queue: queue, logger: logger, handler: members.update),
            Responder(connection: nats, endpoint: Endpoints.memberLinkIdentity, queue: queue, logger: logger, handler: members.link),
            Responder(connection: nats, endpoint: Endpoints.memberUnlinkIdentity, queue: queue, logger: logger, handler: members.unlink),
            Responder(connection: nats, endpoint: Endpoints.memberDelete, queue: queue, logger: logger, handler: members.delete),
            Responder(connection: nats, endpoint: Endpoints.memberAppleNotification, queue: queue, logger: logger,
                      handler: members.appleNotification),
            // The admin-api's calls (only its identity may send them): each names its admin, each change a reason.
            Responder(connection: nats, endpoint: Endpoints.adminFindMembers, queue: queue, logger: logger, handler: members.adminFind),
            Responder(connection: nats, endpoint: Endpoints.adminGetMember, queue: queue, logger: logger, handler: members.adminMember),
            Responder(connection: nats, endpoint: Endpoints.adminSuspendMember, queue: queue, logger: logger, handler: members.adminSuspend),
            Responder(connection: nats, endpoint: Endpoints.adminUnsuspendMember, queue: queue, logger: logger,
                      handler: members.adminUnsuspend),
            Responder(connection: nats, endpoint: Endpoints.adminDeleteMember, queue: queue, logger: logger, handler: members.adminDelete),
        ]
        readiness.require(nats: nats, endpoints: services)
        readiness.started()
        logger.info("member-service ready")
        let discovery = ServiceDiscovery(connection: nats, serviceName: QueueGroups.memberService,
                                         description: "Members and their linked provider identities", services: services, logger: logger)
        let events = EventStreamServices(connection: nats, settings: configuration.events, services: [
            outbox, WebhookSlotProvisioning(connection: nats, replicas: configuration.events.replicas, logger: logger.named("webhook-slots")),
        ], logger: logger)
        let followKeys = ClosureService("follow-issuer-keys") { await keys.follow(client: issuer, timeout: timeout) }
        // Used server nonces are kept until they expire (10 minutes), then forgotten.
        let sweepNonces = ClosureService("sweep-nonces") {
            while !Task.isCancelled {
                do { _ = try await store.forgetExpiredNonces() } catch { logger.warning("could not forget expired nonces", ["error": "\(error)"]) }
                try? await Task.sleep(for: .seconds(60))
            }
        }
        return [events, followKeys, sweepNonces] + services + [discovery]
    }
}
