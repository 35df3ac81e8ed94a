import Authentication
import Contracts
import Foundation
import Logging
import Management
import Metrics
import Messaging
import NATS
import Persistence
import Postgres
import Runtime

/// The token-issuer process: migrates the `issuer` schema, loads its signing keys, then answers
/// its NATS endpoints (issue, refresh, sessions, suspensions, the admins' session calls, JWKS, key
/// rotation), publishes session events from its outbox, ends sessions on member, identity and
/// suspension events, rotates keys by age and cleans up expired sessions.
public struct TokenIssuerServer: Service {
    private let configuration: TokenIssuerConfiguration
    private let logger: Logger
    private let onReady: @Sendable () -> Void

    /// Creates the service; nothing connects until `run()`. `onReady` is called once it serves.
    public init(configuration: TokenIssuerConfiguration, logger: Logger, onReady: @escaping @Sendable () -> Void = {}) {
        self.configuration = configuration
        self.logger = logger
        self.onReady = onReady
    }

    /// One group of named services: `management`, `postgres` and `nats` (opened inside the group and closed
    /// after everything else stopped), then the `migrations` and `signing-keys` preludes, which the issuer's
    /// own services follow, so a signal stops it in any state and `/readyz` stays 503 until they are done.
    /// The stream set-up (`event-stream`) is the prelude of the outbox and the consumers only, waited for,
    /// not fatal.
    public func run() async throws {
        let readiness = Readiness()
        let metrics = MetricsRegistry()
        let management = ManagementServer(configuration: configuration.management, metrics: metrics, readiness: readiness, logger: logger)
        let database = ResourceService.database(url: configuration.databaseURL, poolSize: configuration.databasePoolSize,
                                                applicationName: "token-issuer", logger: logger)
        let nats = ResourceService.nats(url: configuration.natsURL, access: configuration.natsAccess, name: "token-issuer", logger: logger)
        let migrations = ClosurePrelude("migrations") {
            let database = try await database.value
            try await database.migrateRetrying(schema: IssuerMigrations.schema, migrations: IssuerMigrations.all,
                                               functions: IssuerMigrations.functions, logger: logger)
            return [ClosurePrelude("signing-keys") {
                try await services(database: database, nats: nats, readiness: readiness, metrics: metrics)
            }]
        }
        try await ServiceGroup(services: [management, database, nats, migrations], logger: logger).run()
    }

    /// Loads the signing keys, the refresh token keys and the successor secret, then makes the services that follow: the outbox and
    /// the consumers behind their stream set-up, the endpoints, key maintenance, clean-up and service discovery.
    private func services(database: PostgresClient, nats connection: ResourceService<NATSConnection>, readiness: Readiness,
                          metrics: MetricsRegistry) async throws -> [any Service] {
        let keys = SigningKeys(database: database, keyFiles: configuration.signingKeyFiles,
                               accessTokenTTL: configuration.accessTokenTTL, publishLead: configuration.signingKeyPublishLead,
                               logger: logger)
        let recordedKey = try await keys.load()
        let store = SessionStore(database: database, refreshTokenTTL: configuration.refreshTokenTTL,
                                 reuseGrace: configuration.refreshReuseGrace)
        let secret = try await store.secret("refresh-successor")
        let refreshKeys: RefreshTokenKeyring
        if let files = configuration.refreshTokenKeyFiles {
            refreshKeys = RefreshTokenKeyring(files: files, keys: try RefreshTokenKeys.readKeyFiles(files))
        } else {
            logger.warning("REFRESH_TOKEN_KEY_FILE is unset: the refresh token key is kept in the database, so a copy of it makes refresh tokens (development only; set it in production)")
            guard let generated = RefreshTokenKeys([try await store.secret("refresh-token-key")]) else { throw ServiceFailure.internal }
            refreshKeys = RefreshTokenKeyring(files: nil, keys: generated)
        }

        let nats = try await connection.value
        if recordedKey { try? nats.publish(SigningKeyNotices.changed, []) }
        let outbox = Outbox.sessionEvents(database: database, connection: nats, accessTokenTTL: configuration.accessTokenTTL,
                                          pollInterval: configuration.outboxPollInterval, logger: logger.named("outbox"))
        let proof = MemberProof(leeway: configuration.clockSkew) { [configuration] _ in
            MemberProof.TrustedKeys(set: await keys.verificationKeys(), issuer: configuration.issuer, audience: configuration.audience)
        }
        let handlers = IssuerHandlers(repository: store, tokens: AccessTokens(keys: keys, configuration: configuration), keys: keys,
                                      outbox: outbox.wakeup, refreshKeys: refreshKeys, successorSecret: secret, configuration: configuration, proof: proof,
                                      logger: logger)
        var events: [any Service] = [outbox]
        let services: [any Service] = Self.responders(nats, handlers, logger: logger) + [
            Self.keyMaintenance(nats, keys, configuration: configuration, logger: logger),
            Self.refreshKeyReload(refreshKeys, configuration: configuration, logger: logger),
            Self.cleanUp(store, keys, configuration: configuration, logger: logger),
        ]
        if configuration.consumesEvents {
            events += SessionEventsConsumer.make(connection: nats, store: store, handlers: handlers, outbox: outbox.wakeup,
                                                 metrics: metrics, logger: logger.named("events"))
        }
        readiness.require(nats: nats, endpoints: services)
        readiness.started()
        logger.info("token-issuer ready")
        let discovery = ServiceDiscovery(connection: nats, serviceName: QueueGroups.tokenIssuer,
                                         description: "Access and refresh tokens, sessions, signing keys", services: services, logger: logger)
        onReady()
        // The outbox and the consumers wait for the stream (a JetStream cluster may be electing a leader);
        // tokens are issued meanwhile, their session events kept in the outbox.
        let stream = EventStreamServices(connection: nats, settings: configuration.events, services: events, logger: logger)
        return [stream] + services + [discovery]
    }

    /// One responder per endpoint, in the issuer's queue group.
    private static func responders(_ nats: NATSConnection, _ handlers: IssuerHandlers, logger: Logger) -> [any Service] {
        let queue = QueueGroups.tokenIssuer
        return [
            Responder.ping(connection: nats, queueGroup: queue, logger: logger),
            // The member-service that handed the login on remembers the access token as verified.
            Responder(connection: nats, endpoint: Endpoints.issueTokens, queue: queue, logger: logger,
                      noting: IssuedTokenNote.headers(for:), handler: handlers.issue),
            Responder(connection: nats, endpoint: Endpoints.refreshTokens, queue: queue, logger: logger, handler: handlers.refresh),
            Responder(connection: nats, endpoint: Endpoints.logout, queue: queue, logger: logger, handler: handlers.logout),
            Responder(connection: nats, endpoint: Endpoints.logoutAll, queue: queue, logger: logger, handler: handlers.logoutAll),
            Responder(connection: nats, endpoint: Endpoints.endSession, queue: queue, logger: logger, handler: handlers.endSession),
            Responder(connection: nats, endpoint: Endpoints.endDeletedMember, queue: queue, logger: logger, handler: handlers.endDeletedMember),
            Responder(connection: nats, endpoint: Endpoints.endIdentitySessions, queue: queue, logger: logger,
                      handler: handlers.endIdentitySessions),
            Responder(connection: nats, endpoint: Endpoints.listSessions, queue: queue, logger: logger, handler: handlers.sessions),
            // Sent by the member-service alone, after it committed a suspension or its lifting.
            Responder(connection: nats, endpoint: Endpoints.memberSuspension, queue: queue, logger: logger,
                      handler: handlers.memberSuspension),
            // Sent by the admin-api alone (BusSubjects.requests): its identity is the proof, for a named admin.
            Responder(connection: nats, endpoint: Endpoints.adminListSessions, queue: queue, logger: logger, handler: handlers.adminSessions),
            Responder(connection: nats, endpoint: Endpoints.adminEndSession, queue: queue, logger: logger, handler: handlers.adminEndSession),
            Responder(connection: nats, endpoint: Endpoints.accessTokenKeys, queue: queue, logger: logger, handler: handlers.jwks),
            // Read by each gateway at start and after a reconnect: a few at a time, so a reconnecting fleet
            // leaves the pool to logins and refreshes.
            Responder(connection: nats, endpoint: Endpoints.endedSessions, queue: queue, maxConcurrent: 4, logger: logger,
                      handler: handlers.endedSessions),
            Responder(connection: nats, endpoint: Endpoints.rotateSigningKeys, queue: queue, logger: logger) { request in
                let rotation = try await handlers.rotateKeys(request)
                // Every replica reloads at once, so all publish the next key and switch to it together.
                try? nats.publish(SigningKeyNotices.changed, [])
                return rotation
            },
        ]
    }

    /// Keeps every replica's keys current: reloads on a notice from the replica that rotated or recorded a
    /// new key file, and every `signingKeyReloadInterval` (which also picks up new key files), and starts
    /// the rotation by age of database keys when it is due.
    private static func keyMaintenance(_ nats: NATSConnection, _ keys: SigningKeys, configuration: TokenIssuerConfiguration,
                                       logger: Logger) -> any Service {
        ClosureService("signing-key-maintenance") {
            let notices = try nats.subscribe(SigningKeyNotices.changed)
            let listener = Task {
                for await _ in notices {
                    do { try await keys.load() } catch { logger.warning("signing keys reload failed", ["error": String(describing: error)]) }
                }
            }
            defer {
                notices.unsubscribe()
                listener.cancel()
            }
            // A rotation between the first load and the subscription would otherwise go unseen for 30 s.
            do {
                if try await keys.load() { try? nats.publish(SigningKeyNotices.changed, []) }
            } catch {
                logger.warning("signing keys reload failed", ["error": String(describing: error)])
            }
            while !Task.isCancelled {
                try await Task.sleep(for: configuration.signingKeyReloadInterval)
                do {
                    if configuration.signingKeyRotation > .zero, try await keys.rotate(olderThan: configuration.signingKeyRotation) != nil {
                        try? nats.publish(SigningKeyNotices.changed, [])
                    } else if try await keys.load() {
                        try? nats.publish(SigningKeyNotices.changed, [])
                    }
                } catch {
                    logger.warning("signing keys reload failed", ["error": String(describing: error)])
                }
            }
        }
    }

    /// Reads the refresh token key files again every `signingKeyReloadInterval`: a key added there is taken
    /// without a restart. A file that cannot be read keeps the keys held, with a warning naming it.
    private static func refreshKeyReload(_ keyring: RefreshTokenKeyring, configuration: TokenIssuerConfiguration,
                                         logger: Logger) -> any Service {
        ClosureService("refresh-token-keys") {
            while !Task.isCancelled {
                try await Task.sleep(for: configuration.signingKeyReloadInterval)
                do {
                    if let (held, kept) = try keyring.reload() {
                        logger.notice("refresh token keys changed; the last in the files makes tokens",
                                      ["keys": String(held), "keys.kept_until_restart": String(kept)])
                        if kept > 0 {
                            logger.warning("a refresh token key left the files: it still checks tokens until this replica restarts")
                        }
                    }
                } catch {
                    logger.warning("refresh token key files reload failed; the keys held stay", ["error": String(describing: error)])
                }
            }
        }
    }

    /// Deletes expired sessions, old refresh tokens and long-retired keys, one replica at a time.
    private static func cleanUp(_ store: SessionStore, _ keys: SigningKeys, configuration: TokenIssuerConfiguration,
                                logger: Logger) -> any Service {
        ClosureService("clean-up") {
            while !Task.isCancelled {
                try await Task.sleep(for: configuration.cleanupInterval)
                do {
                    // Ended sessions stay as long as their access tokens could be live, for the record.
                    let deleted = try await store.cleanUp(endedRetention: configuration.accessTokenTTL)
                    try await keys.deleteExpired()
                    if deleted > 0 { logger.info("expired sessions cleaned up", ["rows.deleted": String(deleted)]) }
                } catch {
                    logger.warning("clean-up failed", ["error": String(describing: error)])
                }
            }
        }
    }
}
