/// The messages of a durable JetStream consumer, as an `AsyncSequence`; stops when released or on ``stop()``.
///
/// A thread owned by the consumer fetches small batches (`natsSubscription_Fetch` blocks, so it never
/// runs on a Swift cooperative thread) and hands them over through a bounded buffer.
public final class JetStreamConsumer: AsyncSequence, Sendable {
    /// Each element is one delivered message, to be acknowledged.
    public typealias Element = JetStreamMessage
    /// Iteration throws when the consumer cannot be set up or the connection closes.
    public typealias Failure = any Error

    let worker: ConsumerWorker

    init(worker: ConsumerWorker) {
        self.worker = worker
    }

    deinit {
        worker.stop()
    }

    /// The stream consumed.
    public var stream: String { worker.stream }
    /// The durable consumer's name.
    public var durable: String { worker.durable }

    /// Stops fetching; iteration ends after the messages already fetched. The durable consumer stays on
    /// the server, and un-acknowledged messages are delivered again after their ack wait.
    public func stop() {
        worker.stop()
    }

    /// Lets a consumer made `onDemand` fetch `count` more messages (its reader made room for them); nothing otherwise.
    public func allow(_ count: Int) {
        worker.allowance?.allow(count)
    }

    /// The next delivered message (waiting for one) and, with it, those already fetched behind it, `limit` in
    /// all at most: a consumer that handles messages in batches takes what came together. Empty after
    /// ``stop()`` or task cancellation.
    public func nextBatch(limit: Int) async throws -> [JetStreamMessage] {
        guard let first = try await worker.channel.next() else { return [] }
        return [first] + worker.channel.takeBuffered(Swift.max(0, limit - 1))
    }

    /// Iterates over delivered messages.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: JetStreamConsumer

        /// The next message; nil after ``JetStreamConsumer/stop()`` or task cancellation.
        public mutating func next() async throws -> JetStreamMessage? {
            try await consumer.worker.channel.next()
        }
    }

    /// Starts iterating; several tasks may iterate at once and share the messages.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: self)
    }
}
