import Postgres

/// How many statements of `database`'s own database wait on a lock (on an advisory lock only, with `advisory`)
/// while running SQL that contains `fragment`: what a race test waits for before it lets the lock go.
func lockWaiters(_ database: PostgresClient, running fragment: String, advisory: Bool = false) async throws -> Int64 {
    let rows = try await database.query(
        """
        SELECT count(*) AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event LIKE \(advisory ? "advisory" : "%")
           AND query LIKE '%' || \(fragment) || '%'
        """)
    return try rows.first?.int("n") ?? 0
}
