import Contracts
import JSON
import Logging
import Metrics
import NATS
import Runtime

/// One durable JetStream consumer of many event types at once (a filter such as `events.>`), handled in
/// batches: the events fetched together go to `handler` as one array, undecoded (each is its subject and
/// its bytes, the handler reads what it knows), and are acknowledged together once it returns. For a
/// consumer that writes every event somewhere (the audit trail), where one statement per batch costs far
/// less than one per event. ``EventConsumer`` stays the consumer of one event type, one at a time.
///
/// The handler must be idempotent (by the events' IDs): an acknowledgement is sent without waiting for the
/// server's confirmation, so a lost one means the event comes again after the ack wait. A handler that
/// throws has the whole batch declined and delivered again after ``EventConsumer/retryDelay(delivery:)``,
/// and the consumer pauses as long before fetching more (the database it writes to may be away). A lost
/// connection or a deleted consumer is waited out and the consumer bound again.
public struct EventBatchConsumer: Service {
    /// One delivered event, as it came.
    public struct Event: Sendable {
        /// The subject it was published on (`events.member.logged-in`).
        public let subject: String
        /// The event's JSON (an ``EventEnvelope``).
        public let payload: [UInt8]
        /// How often it was delivered (1 the first time).
        public let deliveryCount: Int

        /// An event (the tests make their own).
        public init(subject: String, payload: [UInt8], deliveryCount: Int = 1) {
            self.subject = subject
            self.payload = payload
            self.deliveryCount = deliveryCount
        }
    }

    /// The handler: a batch of events, in stream order. Returns once they are handled (they are then
    /// acknowledged); throws to have them all delivered again later.
    public typealias Handler = @Sendable ([Event]) async throws -> Void

    let connection: NATSConnection
    let durable: String
    let filterSubject: String
    let batchSize: Int
    let ackWait: Duration
    let metrics: MetricsRegistry?
    let logger: Logger
    let handler: Handler

    /// A consumer of the events on `filterSubject` through the durable consumer `durable`, handing them on in
    /// batches of at most `batchSize`.
    public init(connection: NATSConnection, durable: String, filterSubject: String = "events.>", batchSize: Int = 256,
                ackWait: Duration = .seconds(30), metrics: MetricsRegistry? = nil, logger: Logger, handler: @escaping Handler) {
        self.connection = connection
        self.durable = durable
        self.filterSubject = filterSubject
        self.batchSize = max(1, batchSize)
        self.ackWait = ackWait
        self.metrics = metrics
        self.logger = logger.with(["nats.durable": durable])
        self.handler = handler
        metrics?.describeCounter("events_handled_total", "Events handled and acknowledged, by durable consumer.")
        metrics?.describeCounter("events_retried_total", "Events declined for a later delivery, by durable consumer.")
    }

    /// The durable consumer's name.
    public var name: String { durable }

    public func run() async throws {
        var warned = false
        while !Task.isCancelled {
            do {
                let consumer = try connection.jetStream.consume(stream: Events.stream, durable: durable, filterSubject: filterSubject,
                                                                ackWait: ackWait, batchSize: batchSize)
                try await withTaskCancellationHandler {
                    while !Task.isCancelled {
                        let messages = try await consumer.nextBatch(limit: batchSize)
                        if messages.isEmpty { break }
                        warned = false
                        try await handle(messages)
                    }
                } onCancel: {
                    consumer.stop()
                }
            } catch is CancellationError {
                break
            } catch {
                if Task.isCancelled { break }
                if !warned {
                    logger.warning("event consumer interrupted; binding again", ["error": String(describing: error)])
                    warned = true
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Hands one batch to the handler, then acknowledges it, or declines it and pauses.
    private func handle(_ messages: [JetStreamMessage]) async throws {
        let labels = ["durable": durable]
        let events = messages.map { Event(subject: $0.subject, payload: $0.payload, deliveryCount: $0.deliveryCount) }
        do {
            try await handler(events)
        } catch {
            let delay = EventConsumer<JSONValue>.retryDelay(delivery: messages.map(\.deliveryCount).max() ?? 1)
            logger.warning("events not handled yet; retrying", ["events": String(messages.count), "delivery": String(messages[0].deliveryCount),
                                                                 "retry.seconds": String(delay.components.seconds),
                                                                 "error": String(describing: error)])
            metrics?.increment("events_retried_total", labels, by: Double(messages.count))
            for message in messages { try? await message.nak(delay: delay) }
            try await Task.sleep(for: delay)
            return
        }
        var acknowledged = 0.0
        for message in messages {
            do {
                try message.ackWithoutConfirmation()
                acknowledged += 1
            } catch {
                // Handled all the same: it comes again after the ack wait, and the handler is idempotent.
                logger.debug("acknowledgement not sent", ["nats.sequence": String(message.streamSequence), "error": String(describing: error)])
            }
        }
        metrics?.increment("events_handled_total", labels, by: acknowledged)
    }
}
