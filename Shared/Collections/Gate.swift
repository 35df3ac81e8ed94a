/// Opens once, from any thread (a cnats callback, a follower task), and stays open; tasks wait at it
/// until it has: a NATS connection's close, a subscription's end, the gateway's catch-up on ended
/// sessions. A ``Promise`` of nothing, whose waiter queue it uses.
public final class Gate: Sendable {
    private let promise = Promise<Void>()

    /// A closed gate.
    public init() {}

    /// True once the gate has opened.
    public var isOpen: Bool {
        promise.result != nil
    }

    /// The tasks waiting now (for tests).
    var waiterCount: Int {
        promise.waiterCount
    }

    /// Opens the gate and lets every waiter through; true when this call opened it, false when it was open.
    @discardableResult
    public func open() -> Bool {
        promise.settle(.success(()))
    }

    /// Returns once the gate is open, cancelled or not (what a close waits for must have happened).
    public func opened() async {
        _ = await promise.settled()
    }

    /// Waits until the gate opens (true), or until `timeout` has passed or the task is cancelled (false,
    /// and the waiter is gone).
    public func wait(timeout: Duration) async -> Bool {
        if isOpen { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.promise.settledUnlessCancelled() != nil }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
