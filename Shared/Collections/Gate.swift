import Synchronization

/// Opens once, from any thread (a cnats callback, a follower task), and stays open; tasks wait at it
/// until it has. The one waiter queue of its kind: a NATS connection's close, a subscription's end,
/// the gateway's catch-up on ended sessions.
public final class Gate: Sendable {
    private struct State {
        var open = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A closed gate.
    public init() {}

    /// True once the gate has opened.
    public var isOpen: Bool {
        state.withLock { $0.open }
    }

    /// The tasks waiting now (for tests).
    var waiterCount: Int {
        state.withLock { $0.waiters.count }
    }

    /// Opens the gate and lets every waiter through; true when this call opened it, false when it was open.
    @discardableResult
    public func open() -> Bool {
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

    /// Returns once the gate is open, cancelled or not (what a close waits for must have happened).
    public func opened() async {
        if isOpen { return }
        await park(newWaiter(), cancellable: false)
    }

    /// Waits until the gate opens (true), or until `timeout` has passed or the task is cancelled (false,
    /// and the waiter is gone).
    public func wait(timeout: Duration) async -> Bool {
        if isOpen { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.openedUnlessCancelled() }
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
    private func openedUnlessCancelled() async -> Bool {
        let id = newWaiter()
        await withTaskCancellationHandler {
            await park(id, cancellable: true)
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
        return isOpen
    }

    private func newWaiter() -> UInt64 {
        state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
    }

    /// Waits as waiter `id` until the gate opens; with `cancellable`, not at all once the task is cancelled
    /// (its cancellation handler resumes a waiter registered before).
    private func park(_ id: UInt64, cancellable: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.open || cancellable && Task.isCancelled { return true }
                state.waiters[id] = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
