import Collections
import Logging
import Synchronization

/// Up to `poolSize` connection slots, created lazily; callers lease a slot, and wait in FIFO order with a
/// timeout when all are busy. A cancelled waiter leaves the queue at once.
///
/// Waiters all wait `poolTimeout` from when they join the queue, so the first in the queue is the first
/// due: one ``DeadlineTimer``, armed for its deadline, fails the late ones.
final class ConnectionPool: Sendable {
    private struct Waiter {
        let id: UInt64
        /// When it fails with `poolTimeout` (uptime nanoseconds).
        let deadline: UInt64
        let continuation: CheckedContinuation<ConnectionSlot, any Error>
    }

    private struct State {
        var idle: [ConnectionSlot] = []
        var all: [ConnectionSlot] = []
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0
        var closed = false
    }

    private enum Lease {
        case slot(ConnectionSlot)
        case wait
        case failure(any Error)
    }

    private let configuration: PostgresConfiguration
    private let gate: ConnectGate
    private let logger: Logger
    private let state = Mutex(State())
    private let timer = DeadlineTimer(label: "postgres.pool-timeouts")

    init(configuration: PostgresConfiguration, logger: Logger) {
        self.configuration = configuration
        self.gate = ConnectGate(backoff: configuration.reconnectBackoff)
        self.logger = logger
        timer.onDeadline { [weak self] in self?.expireWaiters() }
    }

    /// A slot for the caller's exclusive use until `release`; waits up to `poolTimeout` when all are busy.
    func lease() async throws -> ConnectionSlot {
        let immediate = state.withLock { state -> Lease in
            if state.closed { return .failure(PostgresError.closed) }
            if let slot = state.idle.popLast() { return .slot(slot) }
            if state.all.count < max(1, configuration.poolSize) {
                let slot = ConnectionSlot(id: state.all.count, configuration: configuration, gate: gate, logger: logger)
                state.all.append(slot)
                return .slot(slot)
            }
            return .wait
        }
        switch immediate {
        case .slot(let slot): return slot
        case .failure(let error): throw error
        case .wait: return try await wait()
        }
    }

    /// Returns a leased slot: to the longest waiting caller, or to the idle list.
    func release(_ slot: ConnectionSlot) {
        let next = state.withLock { state -> Waiter?? in
            if state.closed { return .none }
            if !state.waiters.isEmpty { return .some(state.waiters.removeFirst()) }
            state.idle.append(slot)
            return .some(nil)
        }
        switch next {
        case .some(.some(let waiter)): waiter.continuation.resume(returning: slot)
        case .some(.none): break
        case .none: Task { await slot.close() }
        }
    }

    /// Fails every waiter and new lease with `.closed`, and closes the connections not in use
    /// (leased ones close when they come back).
    func close() async {
        let (waiters, idle) = state.withLock { state in
            state.closed = true
            defer {
                state.waiters.removeAll()
                state.idle.removeAll()
            }
            return (state.waiters, state.idle)
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: PostgresError.closed)
        }
        for slot in idle {
            await slot.close()
        }
    }

    private func wait() async throws -> ConnectionSlot {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let lease = state.withLock { state -> Lease in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.closed { return .failure(PostgresError.closed) }
                    // A slot may have come back between the first look and now.
                    if let slot = state.idle.popLast() { return .slot(slot) }
                    // Taken under the lock, so the queue's order is the deadlines' order.
                    let deadline = DeadlineTimer.deadline(after: configuration.poolTimeout)
                    state.waiters.append(Waiter(id: id, deadline: deadline, continuation: continuation))
                    timer.arm(atOrBefore: deadline)
                    return .wait
                }
                switch lease {
                case .slot(let slot):
                    continuation.resume(returning: slot)
                case .failure(let error):
                    continuation.resume(throwing: error)
                case .wait:
                    break
                }
            }
        } onCancel: {
            cancelWaiter(id)
        }
    }

    /// Fails the waiters whose deadline passed (the first ones in the queue) with `poolTimeout`, and arms
    /// the timer for the next one's.
    private func expireWaiters() {
        let now = DeadlineTimer.now
        let expired = state.withLock { state -> [Waiter] in
            let late = state.waiters.prefix { $0.deadline <= now }
            state.waiters.removeFirst(late.count)
            timer.rearm(for: state.waiters.first?.deadline, now: now)
            return Array(late)
        }
        for waiter in expired {
            waiter.continuation.resume(throwing: PostgresError.poolTimeout)
        }
    }

    /// Fails waiter `id` with `CancellationError` if it is still waiting (it may have been served already).
    private func cancelWaiter(_ id: UInt64) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: CancellationError())
    }
}
