import Synchronization

/// A subscription that hands each message to a callback on cnats's delivery thread
/// (``NATSConnection/subscribe(_:queue:onMessage:)``).
public final class CallbackSubscription: Sendable {
    /// The callback, and who waits for the subscription's end; cnats holds it until the end.
    final class Receiver: Sendable {
        let onMessage: @Sendable (NATSMessage) -> Void
        private let state = Mutex<(finished: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        init(onMessage: @escaping @Sendable (NATSMessage) -> Void) {
            self.onMessage = onMessage
        }

        /// The subscription ended: cnats delivers nothing more.
        func finish() {
            let waiters = state.withLock { state in
                state.finished = true
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }

        func finished() async {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    if !state.finished { state.waiters.append(continuation) }
                    return state.finished
                }
                if done { continuation.resume() }
            }
        }
    }

    public let subject: String
    private let connection: NATSConnection
    private let handle: SubscriptionHandle
    private let receiver: Receiver

    init(subject: String, connection: NATSConnection, handle: SubscriptionHandle, receiver: Receiver) {
        self.subject = subject
        self.connection = connection
        self.handle = handle
        self.receiver = receiver
    }

    /// Returns once the subscription has ended (drained, unsubscribed or its connection closed) and
    /// its last message was handed over.
    public func finished() async {
        await receiver.finished()
    }

    /// Stops the subscription: the messages cnats already holds are still handed over, then it ends.
    /// Unsubscribes at once if draining is not possible (the connection is down).
    public func drain(timeout: Duration = .seconds(5)) {
        do {
            try handle.drain(timeout: timeout)
        } catch {
            do {
                try handle.unsubscribe()
            } catch {
                connection.logger.warning("NATS unsubscribe failed", ["nats.subject": subject, "nats.error": "\(error)"])
            }
            // cnats calls the completion callback (finish) once its delivery thread is done, after an
            // unsubscribe too: finishing here could report the end while a message is still being handed over.
        }
    }
}
