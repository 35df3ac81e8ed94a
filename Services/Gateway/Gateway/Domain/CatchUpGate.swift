import Synchronization

/// A gate that opens once and stays open: requests with a token wait at it until the gateway has read
/// the stored `session.ended` events, so no token of a session that ended while it was away passes.
final class CatchUpGate: Sendable {
    private struct State {
        var open = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A closed gate.
    init() {}

    /// True once the gate has opened.
    var isOpen: Bool {
        state.withLock { $0.open }
    }

    /// Opens the gate and lets every waiter through; true when this call opened it, false when it was open.
    @discardableResult
    func open() -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
            guard !state.open else { return nil }
            state.open = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume() }
        return true
    }

    /// Waits until the gate opens (true) or `timeout` has passed (false, and the waiter is gone).
    func wait(timeout: Duration) async -> Bool {
        if isOpen { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.passed() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Waits until the gate opens (true), or until the task is cancelled (false).
    private func passed() async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.open || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
        return isOpen
    }
}
