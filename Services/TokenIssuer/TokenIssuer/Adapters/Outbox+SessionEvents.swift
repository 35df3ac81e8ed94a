import Contracts
import Foundation
import Logging
import NATS
import Persistence
import Postgres

extension Outbox {
    /// `issuer.outbox`: the session events the transaction that ended a session wrote (a trigger,
    /// see `IssuerMigrations`), published as `session.ended` and `refresh-token.reused`.
    static let sessionEvents = Table(name: "issuer.outbox", key: "seq",
                                     columns: ["id", "event", "session_id", "member_id", "reason", "created_at"])

    /// The issuer's outbox; `session.ended` says when the session's last access token expires
    /// (`accessTokenTTL` after the session ended).
    static func sessionEvents(database: PostgresClient, connection: NATSConnection, accessTokenTTL: Duration,
                              pollInterval: Duration, logger: Logger) -> Outbox {
        Outbox(table: sessionEvents, database: database, connection: connection, pollInterval: pollInterval, logger: logger) { row in
            let id = try row.uuid("id").uuidString.lowercased()
            let sessionId = try row.uuid("session_id").uuidString.lowercased()
            let memberId = try row.int("member_id")
            let endedAt = try row.date("created_at")
            switch try row.string("event") {
            case Events.refreshTokenReused.name:
                return try Message(Events.refreshTokenReused, RefreshTokenReused(sessionId: sessionId, memberId: memberId),
                                   id: id, occurredAt: endedAt)
            case Events.sessionEnded.name:
                let ended = SessionEnded(sessionId: sessionId, memberId: memberId, reason: try row.string("reason"),
                                         tokensExpireAt: endedAt.addingTimeInterval(accessTokenTTL.timeInterval))
                return try Message(Events.sessionEnded, ended, id: id, occurredAt: endedAt)
            case let event:
                logger.error("outbox event of a type this version does not know; kept aside", ["event.type": event, "event.id": id])
                return nil
            }
        }
    }
}
