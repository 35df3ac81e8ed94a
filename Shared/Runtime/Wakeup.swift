import Synchronization

/// A level-triggered wake-up call between tasks: `signal()` wakes the task waiting in `wait(upTo:)`,
/// or the next one to wait when none is; several signals before a wait count as one.
public final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Creates a wake-up call with no signal pending.
    public init() {}

    /// Wakes the waiting task, or the next call of `wait(upTo:)`.
    public func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the first signal, after `timeout`, or when the task is cancelled.
    public func wait(upTo timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Only a timer that ran out signals: one cancelled because a signal came first must not
                // leave a signal pending, or every later wait would return at once.
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                self.signal()
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state -> Bool in
                        if state.pending || Task.isCancelled {
                            state.pending = false
                            return true
                        }
                        state.waiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                self.signal()
            }
            group.cancelAll()
        }
        // A timer that ran out just as a signal came may leave that signal pending: harmless, at worst
        // one extra round of work, and it does not repeat (the next wait's timer is cancelled, not run out).
    }
}
