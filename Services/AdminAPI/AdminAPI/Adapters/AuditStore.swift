import Foundation
import JSON
import Postgres

/// The audit trail in PostgreSQL (schema `audit`, `AuditMigrations`).
struct AuditStore: AuditRepository {
    let database: PostgresClient

    /// Rows deleted per statement (each its own short transaction) by the sweep, and statements per limit per
    /// sweep: one sweep deletes at most a million rows of each kind of excess; the next goes on.
    static let sweepBatch = 10_000
    static let sweepRounds = 100
    /// The transaction-scoped advisory lock that lets one replica sweep at a time, taken by each of its statements.
    static let sweepLock: Int64 = 0x4155_4449_5400_0001
    /// The lock that orders records against erasures: every insert takes it shared, an erasure exclusive, so a
    /// record stored by another replica while a member is erased is either seen by the erasure's scrub or sees
    /// the member erased (PostgreSQL's snapshots would otherwise let both miss each other).
    static let erasureLock: Int64 = 0x4155_4449_5400_0002
    /// The kinds no cap deletes (only the retention does): what admins did and what it did to the member. A member
    /// cannot add these at will, so no flood of a member's own records pushes them out, per member or in all.
    static let adminKinds = ["admin.suspend", "admin.unsuspend", "admin.delete", "admin.end-session", "member.suspended",
                             "member.unsuspended", "member.deleted"]
    /// The kinds the per-member cap never deletes: the admins' ones and the account's creation (once a member).
    static let keptKinds = adminKinds + ["member.created"]
    /// The kinds the per-member cap deletes first: what a member can cause over and over.
    static let firstDeletedKinds = ["member.updated", "session.ended", "admin.view", "admin.audit", "admin.search", "admin.export"]

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
            try await database.withTransaction { connection in
                _ = try await connection.query("SELECT pg_advisory_xact_lock_shared(\(Self.erasureLock))")
                _ = try await connection.query(Self.insert(rows))
            }
            return
        }
        let erased = "{" + batch.erasedMembers.map(String.init).joined(separator: ",") + "}"
        try await database.withTransaction { connection in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(\(Self.erasureLock))")
            _ = try await connection.query("""
                INSERT INTO audit.erased_members (member_id) SELECT unnest(\(erased)::bigint[]) ON CONFLICT DO NOTHING
                """)
            _ = try await connection.query(Self.insert(rows))
            // The IDs are this code's Int64 values, spliced as a literal.
            _ = try await connection.query(Self.scrub("member_id = ANY('\(erased)'::bigint[])"))
        }
    }

    /// The scrub of the records `condition` picks (an SQL condition on `audit.records`): the personal details
    /// dropped, and the reason (free text an admin wrote, which may name the member) with them.
    private static func scrub(_ condition: String) -> PostgresQuery {
        """
        UPDATE audit.records SET details = details - \(personalKeys)::text[], reason = NULL
         WHERE \(unescaped: condition) AND (details ?| \(personalKeys)::text[] OR reason IS NOT NULL)
        """
    }

    /// One statement for the whole batch; a record of an erased member goes in without its personal details.
    private static func insert(_ rows: String, returningID: Bool = false) -> PostgresQuery {
        """
        INSERT INTO audit.records (event_id, member_id, kind, occurred_at, admin, reason, details)
        SELECT r.value->>'eventId', (r.value->>'memberId')::bigint, r.value->>'kind', (r.value->>'occurredAt')::timestamptz,
               r.value->>'admin', CASE WHEN e.member_id IS NULL THEN r.value->>'reason' END,
               CASE WHEN e.member_id IS NULL THEN r.value->'details' ELSE (r.value->'details') - \(personalKeys)::text[] END
          FROM jsonb_array_elements(\(PostgresValue.json(rows))::jsonb) WITH ORDINALITY AS r(value, position)
          LEFT JOIN audit.erased_members e ON e.member_id = (r.value->>'memberId')::bigint
         -- In the batch's order, so that IDs follow the stream's.
         ORDER BY r.position
        ON CONFLICT (event_id) DO NOTHING\(unescaped: returningID ? " RETURNING id" : "")
        """
    }

    func begin(_ record: AuditRecord) async throws -> Int64 {
        let rows = try Self.json([record])
        return try await database.withTransaction { connection in
            _ = try await connection.query("SELECT pg_advisory_xact_lock_shared(\(Self.erasureLock))")
            guard let row = try await connection.query(Self.insert(rows, returningID: true)).first else {
                throw PostgresError.invalidParameter("audit record not stored")
            }
            return try row.int("id")
        }
    }

    /// Adds the outcome; a `memberId` among `details` (an ended session's member, known once the issuer
    /// answered) becomes the record's member, so it shows in that member's trail and export.
    func finish(_ id: Int64, status: Int, details: [String: JSONValue]) async throws {
        var outcome = details
        outcome["status"] = .integer(Int64(status))
        let member: Int64? = if case .integer(let value) = details["memberId"] { value } else { nil }
        let json = String(decoding: try MessageCoding.encode(outcome), as: UTF8.self)
        try await database.withTransaction { connection in
            _ = try await connection.query("SELECT pg_advisory_xact_lock_shared(\(Self.erasureLock))")
            _ = try await connection.query("""
                UPDATE audit.records
                   SET member_id = COALESCE(member_id, \(member)),
                       details = CASE WHEN EXISTS (SELECT FROM audit.erased_members e WHERE e.member_id = COALESCE(records.member_id, \(member)))
                                      THEN (details || \(PostgresValue.json(json))::jsonb) - \(Self.personalKeys)::text[]
                                      ELSE details || \(PostgresValue.json(json))::jsonb END,
                       reason = CASE WHEN EXISTS (SELECT FROM audit.erased_members e WHERE e.member_id = COALESCE(records.member_id, \(member)))
                                     THEN NULL ELSE reason END
                 WHERE id = \(id)
                """)
        }
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

    /// Deletes what the retention and the caps no longer allow, each statement a short transaction of its own that
    /// takes the sweep's lock (another replica's sweep meanwhile stops at its next statement); then scrubs any
    /// record of an erased member that kept personal data (the lock above makes that rare; this makes it sure).
    func sweep(_ limits: AuditLimits) async throws -> Int {
        let days = Int64(limits.retentionDays)
        let kept = "{" + Self.keptKinds.joined(separator: ",") + "}"
        let admin = "{" + Self.adminKinds.joined(separator: ",") + "}"
        let first = "{" + Self.firstDeletedKinds.joined(separator: ",") + "}"
        var deleted = 0
        for query: PostgresQuery in [
            """
            DELETE FROM audit.records WHERE id IN (
                SELECT id FROM audit.records WHERE occurred_at < now() - make_interval(days => \(days)::int) LIMIT \(Self.sweepBatch))
            """,
            // Per member: the kept kinds never; what a member can repeat at will first; then the oldest.
            """
            DELETE FROM audit.records WHERE id IN (
                SELECT id FROM (
                    SELECT id, kind, row_number() OVER (
                               PARTITION BY member_id
                               ORDER BY kind = ANY(\(kept)::text[]) DESC, kind = ANY(\(first)::text[]) ASC, id DESC) AS position
                      FROM audit.records
                     WHERE member_id IN (SELECT member_id FROM audit.records WHERE member_id IS NOT NULL
                                          GROUP BY member_id HAVING count(*) > \(limits.maxPerMember))
                ) ranked WHERE position > \(limits.maxPerMember) AND NOT kind = ANY(\(kept)::text[]) LIMIT \(Self.sweepBatch))
            """,
            // The newest maxRecords stay: everything at or below the ID just past them goes, but the admins' kinds.
            """
            DELETE FROM audit.records WHERE id IN (
                SELECT id FROM audit.records
                 WHERE id <= (SELECT id FROM audit.records ORDER BY id DESC OFFSET \(limits.maxRecords) LIMIT 1)
                   AND NOT kind = ANY(\(admin)::text[])
                 ORDER BY id LIMIT \(Self.sweepBatch))
            """,
        ] {
            guard let count = try await repeatedly(query) else { return deleted }
            deleted += count
        }
        try await database.withTransaction { connection in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(\(Self.erasureLock))")
            _ = try await connection.query(Self.scrub("member_id IN (SELECT member_id FROM audit.erased_members)"))
        }
        return deleted
    }

    /// Runs a bounded delete, each in a transaction holding the sweep's lock, until it deletes less than a batch,
    /// at most ``sweepRounds`` times; nil when another replica holds the lock.
    private func repeatedly(_ query: PostgresQuery) async throws -> Int? {
        var total = 0
        for _ in 0..<Self.sweepRounds {
            let count: Int? = try await database.withTransaction { connection in
                let locked = try await connection.query("SELECT pg_try_advisory_xact_lock(\(Self.sweepLock)) AS locked")
                guard try locked.first?.bool("locked") == true else { return nil }
                return try await connection.query(query).affectedRows
            }
            guard let count else { return nil }
            total += count
            if count < Self.sweepBatch { break }
        }
        return total
    }

    private static func json(_ records: [AuditRecord]) throws -> String {
        let rows = records.map { Row(eventId: $0.eventId, memberId: $0.memberId, kind: $0.kind, occurredAt: $0.occurredAt,
                                     admin: $0.admin, reason: $0.reason, details: $0.details) }
        return String(decoding: try MessageCoding.encode(rows), as: UTF8.self)
    }
}
