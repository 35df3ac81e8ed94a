import Dispatch
import Logging
import Synchronization

/// Up to `poolSize` connection slots, created lazily; callers lease a slot, and wait in FIFO order with a
/// timeout when all are busy. A cancelled waiter leaves the queue at once.
///
/// Waiters all wait `poolTimeout`, so the first in the queue is the first due: one dispatch timer, armed
/// for its deadline, fails the late ones (a timer per waiter cost 4% of member-service's CPU under load).
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
        /// The deadline the timer is armed for; `.max` when disarmed.
        var armedDeadline: UInt64 = .max
        var timer: any DispatchSourceTimer
    }

    private enum Lease {
        case slot(ConnectionSlot)
        case wait
        case failure(any Error)
    }

    private let configuration: PostgresConfiguration
    private let gate: ConnectGate
    private let logger: Logger
    private let state: Mutex<State>

    init(configuration: PostgresConfiguration, logger: Logger) {
        self.configuration = configuration
        self.gate = ConnectGate(backoff: configuration.reconnectBackoff)
        self.logger = logger
        state = Mutex(State(timer: DispatchSource.makeTimerSource(queue: DispatchQueue(label: "postgres.pool-timeouts"))))
        state.withLock { state in
            state.timer.setEventHandler { [weak self] in self?.expireWaiters() }
            state.timer.resume()
        }
    }

    deinit {
        state.withLock { $0.timer.cancel() }
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
        let deadline = DispatchTime.now().uptimeNanoseconds &+ configuration.poolTimeout.dispatchNanoseconds
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let lease = state.withLock { state -> Lease in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.closed { return .failure(PostgresError.closed) }
                    // A slot may have come back between the first look and now.
                    if let slot = state.idle.popLast() { return .slot(slot) }
                    state.waiters.append(Waiter(id: id, deadline: deadline, continuation: continuation))
                    if state.armedDeadline == .max { Self.arm(&state, for: deadline) }
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
            removeWaiter(id, error: CancellationError())
        }
    }

    /// Fails the waiters whose deadline passed (the first ones in the queue) with `poolTimeout`, and arms
    /// the timer for the next one's.
    private func expireWaiters() {
        let now = DispatchTime.now().uptimeNanoseconds
        let expired = state.withLock { state -> [Waiter] in
            let late = state.waiters.prefix { $0.deadline <= now }
            state.waiters.removeFirst(late.count)
            if let next = state.waiters.first {
                // Never sooner than 5 ms from now: a burst of waiters served early does not spin the timer.
                Self.arm(&state, for: max(next.deadline, now &+ 5_000_000))
            } else {
                state.armedDeadline = .max
            }
            return Array(late)
        }
        for waiter in expired {
            waiter.continuation.resume(throwing: PostgresError.poolTimeout)
        }
    }

    private static func arm(_ state: inout State, for deadline: UInt64) {
        state.armedDeadline = deadline
        state.timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .milliseconds(1))
    }

    /// Fails waiter `id` with `error` if it is still waiting (it may have been served already).
    private func removeWaiter(_ id: UInt64, error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: error)
    }
}
