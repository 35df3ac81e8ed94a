import Postgres

/// An outbox's rows in the service's PostgreSQL table, with the statements all in one place. The table and
/// column names come from the service's code (``Outbox/Table``), never from input.
struct OutboxTable: OutboxRows {
    let table: Outbox.Table
    let database: PostgresClient
    /// The event of one row, or nil (or an error) for a row this replica cannot publish.
    let message: @Sendable (PostgresRow) throws -> Outbox.Message?

    var tableName: String { table.name }

    /// Takes up to ``Outbox/batchSize`` due rows in key order for ``Outbox/lease`` seconds; returns them in key order.
    func claim() async throws -> [OutboxRow] {
        let columns = ([table.key] + table.columns).joined(separator: ", ")
        let rows = try await database.query("""
            UPDATE \(unescaped: table.name)
               SET available_at = now() + make_interval(secs => \(Int64(Outbox.lease))), attempts = attempts + 1
             WHERE \(unescaped: table.key) IN (SELECT \(unescaped: table.key) FROM \(unescaped: table.name)
                                               WHERE available_at <= now()
                                               ORDER BY \(unescaped: table.key) LIMIT \(Int64(Outbox.batchSize)) FOR UPDATE SKIP LOCKED)
            RETURNING \(unescaped: columns)
            """)
        return try rows.map { row in
            OutboxRow(key: try row.int(table.key), message: Result { try message(row) })
        }.sorted { $0.key < $1.key }
    }

    /// Deletes the `published` rows, makes the `parked` ones due again later (``Outbox/parking``: 15 s doubling with
    /// each claim of the row, at most ``Outbox/parkedFor`` seconds) and the `handBack` ones due at once, each in one
    /// statement.
    func finish(published: [Int64], parked: [Int64], handBack: [Int64]) async throws {
        if !published.isEmpty {
            _ = try await database.query(
                "DELETE FROM \(unescaped: table.name) WHERE \(unescaped: table.key) = ANY(\(Self.array(published))::bigint[])")
        }
        if !parked.isEmpty {
            _ = try await database.query("""
                UPDATE \(unescaped: table.name)
                   SET available_at = now() + make_interval(secs => least(\(Outbox.parking.cap / .seconds(1)),
                       \(Outbox.parking.first / .seconds(1)) * power(2, least(attempts, \(Outbox.parking.doublingsToCap)))))
                 WHERE \(unescaped: table.key) = ANY(\(Self.array(parked))::bigint[])
                """)
        }
        if !handBack.isEmpty {
            _ = try await database.query(
                "UPDATE \(unescaped: table.name) SET available_at = now() WHERE \(unescaped: table.key) = ANY(\(Self.array(handBack))::bigint[])")
        }
    }

    /// A PostgreSQL array literal of keys.
    private static func array(_ keys: [Int64]) -> String {
        "{" + keys.map(String.init).joined(separator: ",") + "}"
    }
}
