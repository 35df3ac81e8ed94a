import Foundation
import JSON
import Postgres

/// The audit trail in PostgreSQL (schema `audit`, `AuditMigrations`).
struct AuditStore: AuditRepository {
    let database: PostgresClient

    /// Rows deleted per statement by the sweep, and statements per limit per sweep: a sweep stays short, the
    /// next one goes on.
    static let sweepBatch = 10_000
    static let sweepRounds = 20
    /// The transaction-scoped advisory lock that lets one replica sweep at a time.
    static let sweepLock: Int64 = 0x4155_4449_5400_0001

    /// One record as the insert reads it: the whole batch is one JSON array, one parameter, one statement.
    private struct Row: Encodable {
        let eventId: String
        let memberId: Int64?
        let kind: String
        let occurredAt: Date
        let admin: String?
        let reason: String?
        let details: [String: JSONValue]
    }

    /// The personal keys, as a `text[]` literal (the names are the code's own: no quoting needed).
    private static let personalKeys = "{" + AuditRecord.personalDetails.sorted().joined(separator: ",") + "}"

    func store(_ batch: AuditBatch) async throws {
        guard !batch.records.isEmpty || !batch.erasedMembers.isEmpty else { return }
        let rows = try Self.json(batch.records)
        if batch.erasedMembers.isEmpty {
            _ = try await database.query(Self.insert(rows))
            return
        }
        let erased = "{" + batch.erasedMembers.map(String.init).joined(separator: ",") + "}"
        try await database.withTransaction { connection in
            _ = try await connection.query("""
                INSERT INTO audit.erased_members (member_id) SELECT unnest(\(erased)::bigint[]) ON CONFLICT DO NOTHING
                """)
            _ = try await connection.query(Self.insert(rows))
            _ = try await connection.query("""
                UPDATE audit.records SET details = details - \(Self.personalKeys)::text[]
                 WHERE member_id = ANY(\(erased)::bigint[]) AND details ?| \(Self.personalKeys)::text[]
                """)
        }
    }

    /// One statement for the whole batch; a record of an erased member goes in without its personal details.
    private static func insert(_ rows: String, returningID: Bool = false) -> PostgresQuery {
        """
        INSERT INTO audit.records (event_id, member_id, kind, occurred_at, admin, reason, details)
        SELECT r.value->>'eventId', (r.value->>'memberId')::bigint, r.value->>'kind', (r.value->>'occurredAt')::timestamptz,
               r.value->>'admin', r.value->>'reason',
               CASE WHEN e.member_id IS NULL THEN r.value->'details' ELSE (r.value->'details') - \(personalKeys)::text[] END
          FROM jsonb_array_elements(\(PostgresValue.json(rows))::jsonb) WITH ORDINALITY AS r(value, position)
          LEFT JOIN audit.erased_members e ON e.member_id = (r.value->>'memberId')::bigint
         -- In the batch's order, so that IDs follow the stream's.
         ORDER BY r.position
        ON CONFLICT (event_id) DO NOTHING\(unescaped: returningID ? " RETURNING id" : "")
        """
    }

    func begin(_ record: AuditRecord) async throws -> Int64 {
        let rows = try await database.query(Self.insert(try Self.json([record]), returningID: true))
        guard let row = rows.first else { throw PostgresError.invalidParameter("audit record not stored") }
        return try row.int("id")
    }

    func finish(_ id: Int64, status: Int, details: [String: JSONValue]) async throws {
        var outcome = details
        outcome["status"] = .integer(Int64(status))
        let json = String(decoding: try MessageCoding.encode(outcome), as: UTF8.self)
        _ = try await database.query("""
            UPDATE audit.records
               SET details = CASE WHEN EXISTS (SELECT FROM audit.erased_members e WHERE e.member_id = records.member_id)
                                  THEN (details || \(PostgresValue.json(json))::jsonb) - \(Self.personalKeys)::text[]
                                  ELSE details || \(PostgresValue.json(json))::jsonb END
             WHERE id = \(id)
            """)
    }

    func records(memberId: Int64, before: Int64?, limit: Int) async throws -> [StoredAuditRecord] {
        let rows = try await database.query("""
            SELECT id, event_id, member_id, kind, occurred_at, admin, reason, details::text AS details
              FROM audit.records
             WHERE member_id = \(memberId) AND id < \(before ?? Int64.max)
             ORDER BY id DESC
             LIMIT \(limit)
            """)
        return try rows.map { row in
            let details = try MessageCoding.decode([String: JSONValue].self, from: Array(try row.string("details").utf8))
            return StoredAuditRecord(id: try row.int("id"), record: AuditRecord(
                eventId: try row.string("event_id"), memberId: try row.optionalInt("member_id"), kind: try row.string("kind"),
                occurredAt: try row.date("occurred_at"), admin: try row.optionalString("admin"), reason: try row.optionalString("reason"),
                details: details))
        }
    }

    func sweep(_ limits: AuditLimits) async throws -> Int {
        try await database.withTransaction { connection in
            // One replica at a time; the others skip this round (the lock ends with the transaction).
            let locked = try await connection.query("SELECT pg_try_advisory_xact_lock(\(Self.sweepLock)) AS locked")
            guard try locked.first?.bool("locked") == true else { return 0 }
            var deleted = 0
            let days = Int64(limits.retentionDays)
            deleted += try await Self.repeatedly(connection, """
                DELETE FROM audit.records WHERE id IN (
                    SELECT id FROM audit.records WHERE occurred_at < now() - make_interval(days => \(days)::int) LIMIT \(Self.sweepBatch))
                """)
            deleted += try await Self.repeatedly(connection, """
                DELETE FROM audit.records WHERE id IN (
                    SELECT id FROM (
                        SELECT id, row_number() OVER (PARTITION BY member_id ORDER BY id DESC) AS position
                          FROM audit.records
                         WHERE member_id IN (SELECT member_id FROM audit.records WHERE member_id IS NOT NULL
                                              GROUP BY member_id HAVING count(*) > \(limits.maxPerMember))
                    ) ranked WHERE position > \(limits.maxPerMember) LIMIT \(Self.sweepBatch))
                """)
            // The newest maxRecords stay: everything at or below the ID just past them goes.
            deleted += try await Self.repeatedly(connection, """
                DELETE FROM audit.records WHERE id IN (
                    SELECT id FROM audit.records
                     WHERE id <= (SELECT id FROM audit.records ORDER BY id DESC OFFSET \(limits.maxRecords) LIMIT 1)
                     ORDER BY id LIMIT \(Self.sweepBatch))
                """)
            return deleted
        }
    }

    /// Runs a bounded delete until it deletes less than a batch, at most ``sweepRounds`` times.
    private static func repeatedly(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> Int {
        var total = 0
        for _ in 0..<sweepRounds {
            let count = try await connection.query(query).affectedRows
            total += count
            if count < sweepBatch { break }
        }
        return total
    }

    private static func json(_ records: [AuditRecord]) throws -> String {
        let rows = records.map { Row(eventId: $0.eventId, memberId: $0.memberId, kind: $0.kind, occurredAt: $0.occurredAt,
                                     admin: $0.admin, reason: $0.reason, details: $0.details) }
        return String(decoding: try MessageCoding.encode(rows), as: UTF8.self)
    }
}
