import Postgres

/// How many statements of `database`'s own database wait on a lock (on an advisory lock only, with `advisory`)
/// while running SQL that contains `fragment`: what a race test waits for before it lets the lock go.
public func lockWaiters(_ database: PostgresClient, running fragment: String, advisory: Bool = false) async throws -> Int64 {
    let rows = try await database.query(
        """
        SELECT count(*) AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event LIKE \(advisory ? "advisory" : "%")
           AND query LIKE '%' || \(fragment) || '%'
        """)
    return try rows.first?.int("n") ?? 0
}

/// How many statements wait on the open transaction of `connection` (for a row it wrote or locked): what a race
/// test waits for before it commits.
public func lockWaiters(on connection: PostgresConnection) async throws -> Int64 {
    try await connection.query("""
        SELECT count(*) AS n FROM pg_locks
         WHERE locktype = 'transactionid' AND NOT granted AND transactionid::text = (txid_current() % 4294967296)::text
        """).first?.int("n") ?? 0
}
