import Postgres

/// The outbox's statements, all in one place. The table and column names come from the service's
/// code (``Outbox/Table``), never from input.
extension Outbox {
    /// Takes up to ``batchSize`` due rows in key order for ``lease`` seconds; returns them in key order.
    func claim() async throws -> [(key: Int64, row: PostgresRow)] {
        let columns = ([table.key] + table.columns).joined(separator: ", ")
        let rows = try await database.query("""
            UPDATE \(table.name) SET available_at = now() + make_interval(secs => $2), attempts = attempts + 1
             WHERE \(table.key) IN (SELECT \(table.key) FROM \(table.name) WHERE available_at <= now()
                                     ORDER BY \(table.key) LIMIT $1 FOR UPDATE SKIP LOCKED)
            RETURNING \(columns)
            """, [.int(Int64(Self.batchSize)), .int(Int64(Self.lease))])
        return try rows.map { (key: try $0.int(table.key), row: $0) }.sorted { $0.key < $1.key }
    }

    /// Deletes the `published` rows and makes the `handBack` ones due again, each in one statement.
    func finish(published: [Int64], handBack: [Int64]) async throws {
        if !published.isEmpty {
            _ = try await database.query("DELETE FROM \(table.name) WHERE \(table.key) = ANY($1::bigint[])",
                                         [.text(Self.array(published))])
        }
        if !handBack.isEmpty {
            _ = try await database.query("UPDATE \(table.name) SET available_at = now() WHERE \(table.key) = ANY($1::bigint[])",
                                         [.text(Self.array(handBack))])
        }
    }

    /// A PostgreSQL array literal of keys.
    private static func array(_ keys: [Int64]) -> String {
        "{" + keys.map(String.init).joined(separator: ",") + "}"
    }
}
