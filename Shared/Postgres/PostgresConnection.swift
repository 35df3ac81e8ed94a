import Synchronization

/// A connection checked out of the pool for a sequence of statements that must share a session (a transaction).
/// Valid only inside the `withConnection` / `withTransaction` closure that provided it.
public final class PostgresConnection: PostgresQueryable {
    private struct Session {
        var generation: UInt64?
        var released = false
    }

    private let slot: ConnectionSlot
    private let session = Mutex(Session())

    init(slot: ConnectionSlot) {
        self.slot = slot
    }

    /// Runs `query` on this connection (prepared once per connection and cached by its text).
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try await run { try $0.query(query) }
    }

    /// Runs `sql` (one or more statements, no parameters) with the simple-query protocol.
    func execute(_ sql: String) async throws -> PostgresRows {
        try await run { try $0.execute(sql) }
    }

    /// Ends the lease; later calls throw `.connectionReleased`.
    func release() {
        session.withLock { $0.released = true }
    }

    private func run(_ work: @escaping @Sendable (ConnectionHandle) throws -> PostgresRows) async throws -> PostgresRows {
        let pinned = try session.withLock { session -> UInt64? in
            if session.released { throw PostgresError.connectionReleased }
            return session.generation
        }
        let (rows, generation) = try await slot.run(pinned: pinned, rollBackOpenTransaction: false, work)
        // Pin the session to the first connection it used: a reconnect must not silently lose it.
        session.withLock { session in
            if session.generation == nil { session.generation = generation }
        }
        return rows
    }
}
