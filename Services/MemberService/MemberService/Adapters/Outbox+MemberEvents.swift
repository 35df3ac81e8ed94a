import Contracts
import JSON
import Logging
import NATS
import Persistence
import Postgres

extension Outbox {
    /// `member.outbox`: the events `OutboxEvent` and `member.enqueue` wrote, each with its type and
    /// its payload as JSON.
    static let memberEvents = Table(name: "member.outbox", key: "id", columns: ["event_id", "event_type", "data", "created_at"])

    /// The member-service's outbox.
    static func memberEvents(database: PostgresClient, connection: NATSConnection, pollInterval: Duration, logger: Logger) -> Outbox {
        Outbox(table: memberEvents, database: database, connection: connection, pollInterval: pollInterval, logger: logger) { row in
            let data = try MessageCoding.decode(JSONValue.self, from: try row.bytes("data"))
            return try Message(EventType<JSONValue>(try row.string("event_type")), data, id: try row.string("event_id"),
                               occurredAt: try row.date("created_at"))
        }
    }
}
