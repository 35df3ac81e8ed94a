import Contracts
import JSON
import Logging
import Messaging
import Postgres
import Runtime

/// Publishes the rows of `member.outbox` to JetStream and deletes each once the stream acknowledged
/// it: at once when a transaction signals new rows, and every `pollInterval` for rows left by a
/// failed publish or a replica that died. Replicas share the table: each claims a batch with
/// `SKIP LOCKED` and a lease, so a row is published by one of them, again only after its lease ran
/// out (JetStream drops the duplicate by event ID).
struct OutboxRelay: Service {
    /// Rows claimed at once.
    static let batchSize = 256
    /// How long a claim holds before another replica may take the row.
    static let lease = 30

    let database: PostgresClient
    let publisher: EventPublisher
    let wakeup: Wakeup
    let streamSettings: EventStreamSettings
    let pollInterval: Duration
    let logger: Logger

    func run() async throws {
        await publisher.ensureStreamRetrying(streamSettings)
        while !Task.isCancelled {
            let claimed: Int
            do {
                claimed = try await publishBatch()
            } catch {
                logger.warning("outbox relay failed, retrying", ["error": String(describing: error)])
                claimed = 0
            }
            if claimed < Self.batchSize {
                await wakeup.wait(upTo: pollInterval)
            }
        }
    }

    /// Claims due rows, publishes them in order until one fails, deletes the published ones and
    /// backs the rest off. Returns how many rows it claimed.
    func publishBatch() async throws -> Int {
        let rows = try await database.query("""
            UPDATE member.outbox SET available_at = now() + make_interval(secs => $2), attempts = attempts + 1
             WHERE id IN (SELECT id FROM member.outbox WHERE available_at <= now()
                           ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
            RETURNING id, event_id, event_type, data, attempts
            """, [.int(Self.batchSize), .int(Self.lease)])
        guard !rows.isEmpty else { return 0 }
        let claimed = try rows.map { row in
            (id: try row.int("id"), eventID: try row.string("event_id"), type: try row.string("event_type"),
             data: try row.bytes("data"), attempts: try row.int("attempts"))
        }.sorted { $0.id < $1.id }

        var published: [Int64] = []
        var failed: [Int64] = []
        var attempts: Int64 = 1
        for event in claimed {
            guard failed.isEmpty else {
                failed.append(event.id)
                continue
            }
            do {
                let data = try MessageCoding.decode(JSONValue.self, from: event.data)
                try await publisher.publish(EventType<JSONValue>(event.type), data, id: event.eventID)
                published.append(event.id)
            } catch {
                logger.warning("event publish failed, will retry",
                               ["event.type": event.type, "event.id": event.eventID, "error": String(describing: error)])
                failed.append(event.id)
                attempts = event.attempts
            }
        }
        if !published.isEmpty {
            _ = try await database.query("DELETE FROM member.outbox WHERE id = ANY($1::bigint[])", [.text(Self.array(published))])
        }
        if !failed.isEmpty {
            // Back off (1 s, 2 s, 4 s ... 30 s) so a JetStream outage is not hammered.
            let delay = min(30, 1 << min(attempts - 1, 5))
            _ = try await database.query(
                "UPDATE member.outbox SET available_at = now() + make_interval(secs => $2) WHERE id = ANY($1::bigint[])",
                [.text(Self.array(failed)), .int(delay)])
        }
        return claimed.count
    }

    /// A PostgreSQL array literal of IDs.
    private static func array(_ ids: [Int64]) -> String {
        "{" + ids.map(String.init).joined(separator: ",") + "}"
    }
}
