import Contracts
import Foundation
import Logging
import Messaging
import Postgres
import Runtime

/// Publishes the session events waiting in `issuer.outbox` (written by the transaction that ended
/// the session) to JetStream, deleting each row only once the stream stored it.
///
/// A replica that crashes between commit and publish loses nothing: the row stays and any replica
/// publishes it within a second. A crash between publish and delete publishes the row again with
/// the same event ID, which JetStream de-duplicates (and consumers are idempotent anyway).
/// Replicas share the work with `FOR UPDATE SKIP LOCKED`.
struct OutboxRelay: Service {
    /// Rows taken per transaction.
    static let batchSize = 100

    private let database: PostgresClient
    private let publisher: EventPublisher
    private let accessTokenTTL: Duration
    private let pollInterval: Duration
    private let logger: Logger
    private let wakeup = Wakeup()

    init(database: PostgresClient, publisher: EventPublisher, accessTokenTTL: Duration,
         pollInterval: Duration = .seconds(1), logger: Logger) {
        self.database = database
        self.publisher = publisher
        self.accessTokenTTL = accessTokenTTL
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Publishes soon: call after a commit that may have written events.
    func poke() {
        wakeup.signal()
    }

    func run() async throws {
        while !Task.isCancelled {
            do {
                while try await publishBatch() == Self.batchSize, !Task.isCancelled {}
            } catch {
                logger.warning("session events not published yet; retrying", ["error": String(describing: error)])
            }
            // The poll catches rows committed by replicas that died before publishing them.
            await wakeup.wait(upTo: pollInterval)
        }
    }

    /// Publishes one batch in order; returns how many rows it took.
    private func publishBatch() async throws -> Int {
        try await database.withTransaction { connection in
            let rows = try await connection.query(
                """
                SELECT seq, id, event, session_id, member_id, reason, created_at FROM issuer.outbox
                 ORDER BY seq LIMIT \(Self.batchSize) FOR UPDATE SKIP LOCKED
                """)
            var published: [Int64] = []
            var failure: (any Error)?
            for row in rows {
                do {
                    try await publish(row)
                    published.append(try row.int("seq"))
                } catch {
                    failure = error
                    break
                }
            }
            if !published.isEmpty {
                _ = try await connection.query(
                    "DELETE FROM issuer.outbox WHERE seq = ANY(\("{" + published.map(String.init).joined(separator: ",") + "}")::bigint[])")
            }
            if let failure {
                // Keep what was published (deleted above, committed below); the rest waits for the next try.
                logger.warning("session event not published yet; retrying", ["error": String(describing: failure)])
                return 0
            }
            return rows.count
        }
    }

    private func publish(_ row: PostgresRow) async throws {
        let id = try row.uuid("id").uuidString.lowercased()
        let sessionId = try row.uuid("session_id").uuidString.lowercased()
        let memberId = try row.int("member_id")
        switch try row.string("event") {
        case Events.refreshTokenReused.name:
            try await publisher.publish(Events.refreshTokenReused, RefreshTokenReused(sessionId: sessionId, memberId: memberId), id: id)
        case Events.sessionEnded.name:
            let tokensExpireAt = try row.date("created_at").addingTimeInterval(accessTokenTTL.timeInterval)
            try await publisher.publish(Events.sessionEnded,
                                        SessionEnded(sessionId: sessionId, memberId: memberId, reason: try row.string("reason"),
                                                     tokensExpireAt: tokensExpireAt),
                                        id: id)
        case let event:
            logger.error("unknown outbox event dropped", ["event.type": event, "event.id": id])
        }
    }
}
