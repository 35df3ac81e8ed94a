import Synchronization

/// Opens once, from any thread (a cnats callback); tasks wait until it has.
final class Latch: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// True once ``open()`` was called.
    var isOpen: Bool { state.withLock { $0.open } }

    /// Opens the latch and resumes every waiting task; later calls do nothing.
    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once the latch is open.
    func wait() async {
        await withCheckedContinuation { continuation in
            let alreadyOpen = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if alreadyOpen { continuation.resume() }
        }
    }
}
