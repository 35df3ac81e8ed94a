import Contracts
import Foundation
import JSON
import Postgres

/// One domain event, written to `member.outbox` in the transaction of the change it announces and
/// published by the shared `Outbox` after commit, so a crash in between loses nothing.
struct OutboxEvent: Sendable {
    /// The event's unique ID (JetStream de-duplicates retried publishes on it).
    let id: String
    /// The event's name (`member.deleted`).
    let type: String
    /// The payload, as JSON.
    let data: [UInt8]

    /// An event of `type` with `data`.
    init<Payload>(_ type: EventType<Payload>, _ data: Payload) throws {
        self.id = UUID().uuidString.lowercased()
        self.type = type.name
        self.data = try MessageCoding.encode(data)
    }

    /// Stores the event; call inside the transaction of the change.
    func write(on connection: some PostgresQueryable) async throws {
        _ = try await connection.query(
            "INSERT INTO member.outbox (event_id, event_type, data) VALUES (\(id), \(type), \(data))")
    }
}
