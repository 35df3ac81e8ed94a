import Logging

/// A pooled PostgreSQL client. Connections open lazily on first use (a service can start while the database is
/// down), each statement is prepared once per connection, and a lost connection is replaced on the next use.
///
/// libpq blocks, so each pooled connection runs on its own serial queue; the async methods wait on a
/// continuation and never block Swift's cooperative threads. Statements are never retried automatically.
public final class PostgresClient: PostgresQueryable, Sendable {
    /// The configuration the client was created with.
    public let configuration: PostgresConfiguration
    let logger: Logger
    private let pool: ConnectionPool

    /// Creates a client; no connection is opened until the first call.
    public init(configuration: PostgresConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.pool = ConnectionPool(configuration: configuration, logger: logger)
    }

    /// Runs `query` (its values bound to its placeholders) on any pooled connection.
    ///
    /// Each distinct SQL text is prepared once per connection (re-prepared after a reconnect). A transaction left
    /// open by the statement is rolled back, since the next statement may run on another connection.
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        let slot = try await pool.lease()
        defer { pool.release(slot) }
        return try await slot.run(pinned: nil, rollBackOpenTransaction: true) { try $0.query(query) }.0
    }

    /// Runs `body` with one connection for its exclusive use; the connection returns to the pool afterwards
    /// (with any transaction it left open rolled back).
    public func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let slot = try await pool.lease()
        let connection = PostgresConnection(slot: slot)
        defer {
            connection.release()
            slot.resetAfterLease()
            pool.release(slot)
        }
        return try await body(connection)
    }

    /// Runs `body` in a transaction: COMMIT when it returns, ROLLBACK when it throws (the error is rethrown).
    public func withTransaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in
            _ = try await connection.execute("BEGIN")
            let value: T
            do {
                value = try await body(connection)
            } catch {
                do {
                    _ = try await connection.execute("ROLLBACK")
                } catch let rollbackError {
                    logger.warning("PostgreSQL rollback failed", ["db.error": "\(rollbackError)"])
                }
                throw error
            }
            _ = try await connection.execute("COMMIT")
            return value
        }
    }

    /// Fails waiting and later calls with `.closed` and closes the pooled connections.
    public func close() async {
        await pool.close()
    }
}
