/// Something that runs parameterized SQL: the pooled `PostgresClient` or a checked-out `PostgresConnection`.
public protocol PostgresQueryable: Sendable {
    /// Runs `sql` with `$1, $2, …` bound to `parameters` and returns the materialised rows.
    func query(_ sql: String, _ parameters: [PostgresValue]) async throws -> PostgresRows
}
