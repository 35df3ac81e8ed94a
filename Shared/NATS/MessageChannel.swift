import Dispatch
import Synchronization

/// What a consumer finds when it looks at the channel.
private enum Poll<Element> {
    case element(Element)
    case end(NATSError?)
    case wait
}

/// A bounded hand-off from a library thread (producer) to Swift tasks (consumers).
///
/// The producer is a cnats delivery thread or a fetch thread owned by this module, never a cooperative
/// thread, so it may block: when `capacity` messages wait unread, `send` blocks until a consumer takes
/// one, and the library's own pending limits then bound what queues up behind it.
final class MessageChannel<Element: Sendable>: Sendable, SubscriptionReceiver {
    private struct State {
        var buffer: [Element] = []
        var head = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Element?, any Error>)] = []
        var nextWaiterID: UInt64 = 0
        var finished = false
        var failure: NATSError?

        mutating func popFirst() -> Element? {
            guard head < buffer.count else { return nil }
            let element = buffer[head]
            head += 1
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                head = 0
            }
            return element
        }
    }

    private let state = Mutex(State())
    private let space: DispatchSemaphore

    /// Creates a channel that holds at most `capacity` unread elements.
    init(capacity: Int) {
        // Start at 0 and signal up to the capacity: libdispatch traps when a semaphore is freed
        // with a count below the value it was created with, which a channel dropped with unread
        // elements would otherwise have.
        space = DispatchSemaphore(value: 0)
        for _ in 0..<max(1, capacity) { space.signal() }
    }

    /// Hands `element` to a waiting consumer or buffers it, blocking while the buffer is full.
    /// Returns false (dropping the element) once the channel is finished.
    @discardableResult
    func send(_ element: Element) -> Bool {
        space.wait()
        let waiter: CheckedContinuation<Element?, any Error>?
        do {
            waiter = try state.withLock { state throws(CancellationError) -> CheckedContinuation<Element?, any Error>? in
                if state.finished { throw CancellationError() }
                if state.waiters.isEmpty {
                    state.buffer.append(element)
                    return nil
                }
                return state.waiters.removeFirst().continuation
            }
        } catch {
            // Pass the wake-up on, so that any other blocked producer sees `finished` too.
            space.signal()
            return false
        }
        if let waiter {
            space.signal()
            waiter.resume(returning: element)
        }
        return true
    }

    /// Ends the channel: consumers get what is buffered, then nil (or `failure`, thrown).
    func finish(failure: NATSError? = nil) {
        let waiters = state.withLock { state in
            guard !state.finished else { return [(id: UInt64, continuation: CheckedContinuation<Element?, any Error>)]() }
            state.finished = true
            state.failure = failure
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters {
            if let failure { waiter.continuation.resume(throwing: failure) } else { waiter.continuation.resume(returning: nil) }
        }
        space.signal()
    }

    /// Up to `limit` elements already buffered, without waiting (none when the buffer is empty).
    func takeBuffered(_ limit: Int) -> [Element] {
        let taken = state.withLock { state -> [Element] in
            var taken: [Element] = []
            while taken.count < limit, let element = state.popFirst() { taken.append(element) }
            return taken
        }
        for _ in taken { space.signal() }
        return taken
    }

    /// The next element, waiting for one; nil when the channel is finished or the task is cancelled.
    func next() async throws -> Element? {
        let immediate = state.withLock { state -> Poll<Element> in
            if let element = state.popFirst() { return .element(element) }
            return state.finished ? .end(state.failure) : .wait
        }
        switch immediate {
        case .element(let element):
            space.signal()
            return element
        case .end(let failure):
            if let failure { throw failure }
            return nil
        case .wait:
            break
        }
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate = state.withLock { state -> Poll<Element> in
                    if let element = state.popFirst() { return .element(element) }
                    if state.finished { return .end(state.failure) }
                    if Task.isCancelled { return .end(nil) }
                    state.waiters.append((id, continuation))
                    return .wait
                }
                switch immediate {
                case .element(let element):
                    space.signal()
                    continuation.resume(returning: element)
                case .end(let failure):
                    if let failure { continuation.resume(throwing: failure) } else { continuation.resume(returning: nil) }
                case .wait:
                    break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: nil)
        }
    }
}

/// What a cnats subscription's callbacks get as their closure pointer (a channel, a callback), told of
/// the subscription's end without knowing its type (from a C callback).
protocol SubscriptionReceiver: AnyObject {
    /// The subscription ended and its last message was handed over; `failure` says why, if it failed.
    func finish(failure: NATSError?)
}
