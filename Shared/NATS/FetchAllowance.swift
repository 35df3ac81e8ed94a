import Dispatch
import Synchronization

/// How many more messages a consumer's fetch thread may fetch, for a consumer that fetches only what it has room for
/// (``JetStreamConsumer/allow(_:)``): nothing it fetched then waits unread, where no one reports progress on it.
final class FetchAllowance: Sendable {
    private let allowed = Mutex(0)
    private let arrived = DispatchSemaphore(value: 0)

    /// Lets `count` more messages be fetched.
    func allow(_ count: Int) {
        guard count > 0 else { return }
        allowed.withLock { $0 += count }
        arrived.signal()
    }

    /// Wakes a fetch thread waiting in ``take(upTo:waitingAtMost:)``.
    func wake() {
        arrived.signal()
    }

    /// Takes up to `limit` of what is allowed, waiting at most `milliseconds` for an allowance when there is none;
    /// 0 when none came. Called by the fetch thread only (it blocks).
    func take(upTo limit: Int, waitingAtMost milliseconds: Int) -> Int {
        let takeNow = {
            self.allowed.withLock { allowed in
                defer { allowed -= min(allowed, limit) }
                return min(allowed, limit)
            }
        }
        let taken = takeNow()
        if taken > 0 { return taken }
        _ = arrived.wait(timeout: .now() + .milliseconds(milliseconds))
        return takeNow()
    }

    /// Gives back `count` taken and not used (a fetch that brought fewer).
    func giveBack(_ count: Int) {
        guard count > 0 else { return }
        allowed.withLock { $0 += count }
    }
}
