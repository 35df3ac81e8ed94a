import Logging

/// The messages of one core NATS subscription.
public typealias NATSSubscription = Subscription<NATSMessage>

/// The messages of one subscription, as an `AsyncSequence`; iteration ends after ``unsubscribe()`` or when
/// the connection closes. `Message` is ``NATSMessage`` for core subscriptions and ``JetStreamMessage``
/// for a stream followed with ``JetStream/follow(stream:subject:since:)``.
///
/// At most `Configuration.subscriptionBufferSize` messages wait unread here; beyond that the library
/// queues up to its pending limits and then drops (and logs a slow-consumer error).
public final class Subscription<Message: Sendable>: AsyncSequence, Sendable {
    /// Each element is one received message.
    public typealias Element = Message
    /// Iteration never throws.
    public typealias Failure = Never

    /// The subscribed subject (may contain wildcards).
    public let subject: String
    /// The queue group, if any.
    public let queue: String?
    private let connection: NATSConnection
    private let handle: SubscriptionHandle
    private let channel: MessageChannel<Message>

    init(subject: String, queue: String?, connection: NATSConnection, handle: SubscriptionHandle,
         channel: MessageChannel<Message>) {
        self.subject = subject
        self.queue = queue
        self.connection = connection
        self.handle = handle
        self.channel = channel
    }

    deinit {
        channel.finish()
    }

    /// Stops the subscription: no more messages are delivered and iteration ends. Idempotent.
    public func unsubscribe() {
        do {
            try handle.unsubscribe()
        } catch {
            connection.logger.warning("NATS unsubscribe failed", ["nats.subject": subject, "nats.error": "\(error)"])
        }
        channel.finish()
    }

    /// Stops the subscription gracefully: the server sends no more, and iteration ends after the messages
    /// already received (at the latest after `timeout`). Where draining is not possible (the connection
    /// is closed or reconnecting) it unsubscribes. Idempotent.
    public func drain(timeout: Duration = .seconds(5)) {
        do {
            try handle.drain(timeout: timeout)
        } catch {
            unsubscribe()
        }
    }

    /// Iterates over the received messages.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: Subscription<Message>

        /// The next message, or nil after unsubscribe, connection close or task cancellation.
        public mutating func next() async -> Message? {
            // The channel only throws when finished with a failure, which subscriptions never use.
            try? await subscription.channel.next()
        }
    }

    /// Starts iterating; several tasks may iterate at once and share the messages.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(subscription: self)
    }
}
