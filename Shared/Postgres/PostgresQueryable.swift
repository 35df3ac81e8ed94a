/// Something that runs parameterized SQL: the pooled `PostgresClient` or a checked-out `PostgresConnection`.
public protocol PostgresQueryable: Sendable {
    /// Runs `query` (its values bound to its placeholders) and returns the materialised rows.
    func query(_ query: PostgresQuery) async throws -> PostgresRows
}
