import Synchronization

/// A level-triggered wake-up call between tasks: `signal()` wakes the task waiting in `wait(upTo:)`,
/// or the next one to wait when none is; several signals before a wait count as one.
final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Wakes the waiting task, or the next call of `wait(upTo:)`.
    func signal() {
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
    func wait(upTo timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
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
        // The timer's (or cancellation's) signal may land after the wake-up it raced: harmless, at
        // worst one extra round of work.
    }
}
