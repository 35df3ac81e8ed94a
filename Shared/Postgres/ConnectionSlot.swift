import Dispatch
import Logging
import Synchronization

/// One place in the pool: a serial queue that drives at most one libpq connection, opened on first use
/// and reopened after it is lost. libpq blocks, so every call runs on this queue, never on Swift's
/// cooperative threads; the caller waits on a continuation.
final class ConnectionSlot: Sendable {
    private struct State {
        var handle: ConnectionHandle?
        var generation: UInt64 = 0
    }

    let id: Int
    private let queue: DispatchQueue
    private let configuration: PostgresConfiguration
    private let gate: ConnectGate
    private let logger: Logger
    private let state = Mutex(State())

    init(id: Int, configuration: PostgresConfiguration, gate: ConnectGate, logger: Logger) {
        self.id = id
        self.queue = DispatchQueue(label: "postgres.connection.\(id)")
        self.configuration = configuration
        self.gate = gate
        self.logger = logger.with(["db.slot": String(id)])
    }

    /// Runs `work` on the slot's queue with a usable connection and returns its result with the connection's
    /// generation. With `pinned`, only that connection is acceptable: if it was lost, the call fails with
    /// `.connectionLost` rather than silently continuing a session on a new connection. With `rollBackOpenTransaction`,
    /// a transaction the work left open is rolled back, since the next caller may be someone else.
    func run<T: Sendable>(
        pinned: UInt64?, rollBackOpenTransaction: Bool,
        _ work: @escaping @Sendable (ConnectionHandle) throws -> T
    ) async throws -> (T, UInt64) {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result {
                    let handle = try self.usableHandle(pinned: pinned)
                    defer {
                        if rollBackOpenTransaction { self.rollBackIfNeeded(handle) }
                    }
                    do {
                        return (try work(handle), handle.generation)
                    } catch {
                        if handle.isBroken { self.discard(handle, reason: "\(error)") }
                        throw error
                    }
                })
            }
        }
    }

    /// Rolls back a transaction left open by the last lease, before the next caller's work (same serial queue).
    func resetAfterLease() {
        queue.async {
            guard let handle = self.state.withLock({ $0.handle }) else { return }
            self.rollBackIfNeeded(handle)
        }
    }

    /// Closes the connection, waiting for work already queued to finish first.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                // Dropping the last reference finishes the PGconn.
                self.state.withLock { $0.handle = nil }
                continuation.resume()
            }
        }
    }

    private func usableHandle(pinned: UInt64?) throws -> ConnectionHandle {
        let current = state.withLock { $0.handle }
        if let current {
            if current.isUsable {
                guard pinned == nil || pinned == current.generation else {
                    throw PostgresError.connectionLost("the session's connection was replaced after it was lost")
                }
                return current
            }
            discard(current, reason: "the server closed the connection")
        }
        if pinned != nil {
            throw PostgresError.connectionLost("the session's connection was lost")
        }
        try gate.checkOpen()
        do {
            let generation = state.withLock { state in
                state.generation += 1
                return state.generation
            }
            let handle = try ConnectionHandle.connect(configuration, generation: generation)
            gate.record(success: true)
            state.withLock { $0.handle = handle }
            logger.debug("PostgreSQL connection opened", ["db.host": configuration.host, "db.name": configuration.database])
            return handle
        } catch {
            gate.record(success: false)
            logger.warning("PostgreSQL connection failed", ["db.host": configuration.host, "db.error": "\(error)"])
            throw error
        }
    }

    private func rollBackIfNeeded(_ handle: ConnectionHandle) {
        guard !handle.isBroken, handle.isInTransaction else { return }
        do {
            _ = try handle.execute("ROLLBACK")
            logger.warning("rolled back a transaction left open on a pooled connection")
        } catch {
            discard(handle, reason: "rollback failed: \(error)")
        }
    }

    private func discard(_ handle: ConnectionHandle, reason: String) {
        let removed = state.withLock { state -> Bool in
            guard state.handle === handle else { return false }
            state.handle = nil
            return true
        }
        if removed {
            logger.warning("PostgreSQL connection discarded; the next use reconnects", ["db.reason": reason])
        }
    }
}
