import Collections

/// A subscription that hands each message to a callback on cnats's delivery thread
/// (``NATSConnection/subscribe(_:queue:onMessage:)``).
public final class CallbackSubscription: Sendable {
    /// The callback, and who waits for the subscription's end; cnats holds it until the end.
    final class Receiver: Sendable, SubscriptionReceiver {
        let onMessage: @Sendable (NATSMessage) -> Void
        /// Open once the subscription ended: cnats delivers nothing more.
        let ended = Gate()

        init(onMessage: @escaping @Sendable (NATSMessage) -> Void) {
            self.onMessage = onMessage
        }

        func finish(failure: NATSError?) {
            ended.open()
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
        await receiver.ended.opened()
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
            // cnats calls the completion callback (which opens `ended`) once its delivery thread is done, after an
            // unsubscribe too: finishing here could report the end while a message is still being handed over.
        }
    }
}
