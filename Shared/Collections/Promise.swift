import Synchronization

/// A result set once, from any thread (a cnats callback, a task that opened a resource), that tasks wait
/// for: the one waiter queue of the package, with cancellation handled here and nowhere else. ``Gate`` is a
/// promise of nothing; `ResourceService` waits on one for its resource.
public final class Promise<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiters: [UInt64: CheckedContinuation<Result<Value, any Error>?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A promise not yet kept.
    public init() {}

    /// The result once set, else nil.
    public var result: Result<Value, any Error>? {
        state.withLock { $0.result }
    }

    /// The tasks waiting now (for tests).
    var waiterCount: Int {
        state.withLock { $0.waiters.count }
    }

    /// Sets the result and hands it to every waiter; true when this call set it, false when it was set before
    /// (and stays as it was).
    @discardableResult
    public func settle(_ result: Result<Value, any Error>) -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<Value, any Error>?, Never>]? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: result) }
        return true
    }

    /// The result once set, whether the task is cancelled or not (for what must have happened, such as a close).
    public func settled() async -> Result<Value, any Error> {
        if let result { return result }
        // Not cancellable: only a settlement resumes this waiter.
        return await park(newWaiter(), cancellable: false)!
    }

    /// The result once set, or nil as soon as the task is cancelled (its waiter gone).
    public func settledUnlessCancelled() async -> Result<Value, any Error>? {
        if let result { return result }
        let id = newWaiter()
        return await withTaskCancellationHandler {
            await park(id, cancellable: true)
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    private func newWaiter() -> UInt64 {
        state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
    }

    /// Waits as waiter `id` until the result is set; with `cancellable`, not at all once the task is cancelled
    /// (its cancellation handler resumes a waiter registered before, with nil).
    private func park(_ id: UInt64, cancellable: Bool) async -> Result<Value, any Error>? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, any Error>?, Never>) in
            let now = state.withLock { state -> Result<Value, any Error>?? in
                if let result = state.result { return .some(result) }
                if cancellable && Task.isCancelled { return .some(nil) }
                state.waiters[id] = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
