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
/// throws on a batch is handed its events one by one: one it fails on alone is declined and delivered again
/// after ``EventConsumer/retryDelay(delivery:)`` (the consumer pausing as long: the database it writes to
/// may be away), and terminated after ``maxDeliveriesAlone`` deliveries, so no event blocks the others for
/// ever. A lost connection or a deleted consumer is waited out and the consumer bound again.
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
        metrics?.describeCounter("events_terminated_total", "Events terminated after repeated failed deliveries, by durable consumer.")
    }

    /// The durable consumer's name.
    public var name: String { durable }

    public func run() async throws {
        await DurableBinding.run(logger: logger, bind: {
            try connection.jetStream.consume(stream: Events.stream, durable: durable, filterSubject: filterSubject, ackWait: ackWait,
                                             batchSize: batchSize)
        }, consume: { consumer, progressed in
            while !Task.isCancelled {
                let messages = try await consumer.nextBatch(limit: batchSize)
                if messages.isEmpty { break }
                progressed()
                try await handle(messages)
            }
            return .bindAgain
        })
    }

    /// After this many deliveries, an event its handler still fails on alone is terminated (logged as an error,
    /// counted), so that one event the handler can never take (a value its database refuses) holds up no other.
    public static let maxDeliveriesAlone = 5

    /// Hands one batch to the handler, then acknowledges it. When the handler fails on the batch, it is handed
    /// its events one by one: those it takes are acknowledged; one it fails on alone is declined for a later
    /// delivery (and the consumer pauses: the database may be away), or terminated after
    /// ``maxDeliveriesAlone`` deliveries.
    private func handle(_ messages: [JetStreamMessage]) async throws {
        let events = messages.map { Event(subject: $0.subject, payload: $0.payload, deliveryCount: $0.deliveryCount) }
        do {
            try await handler(events)
            acknowledge(messages)
            return
        } catch where messages.count == 1 {
            try await decline(messages[0], error)
            return
        } catch {
            logger.warning("a batch of events not handled; handing them on one by one", ["events": String(messages.count),
                                                                                          "error": String(describing: error)])
        }
        var failed = false
        for (message, event) in zip(messages, events) {
            // After one failure alone, the rest of the batch comes again with it later: the database may be away.
            if failed {
                try? await message.nak(delay: EventConsumer<JSONValue>.retryDelay(delivery: message.deliveryCount))
                continue
            }
            do {
                try await handler([event])
                acknowledge([message])
            } catch {
                failed = try await decline(message, error, pause: false)
            }
        }
        if failed { try await Task.sleep(for: EventConsumer<JSONValue>.retryDelay(delivery: messages.map(\.deliveryCount).max() ?? 1)) }
    }

    /// Declines `message` for a later delivery, or terminates it after ``maxDeliveriesAlone``; with `pause`, waits
    /// the delay before the consumer fetches more. Returns whether it was declined (not terminated).
    @discardableResult
    private func decline(_ message: JetStreamMessage, _ error: any Error, pause: Bool = true) async throws -> Bool {
        let labels = ["durable": durable]
        guard message.deliveryCount < Self.maxDeliveriesAlone else {
            logger.error("event not handled after repeated deliveries; terminated", [
                "nats.subject": message.subject, "nats.sequence": String(message.streamSequence),
                "delivery": String(message.deliveryCount), "error": String(describing: error)])
            metrics?.increment("events_terminated_total", labels)
            try? await message.term()
            return false
        }
        let delay = EventConsumer<JSONValue>.retryDelay(delivery: message.deliveryCount)
        logger.warning("event not handled yet; retrying", ["nats.subject": message.subject, "delivery": String(message.deliveryCount),
                                                           "retry.seconds": String(delay.components.seconds),
                                                           "error": String(describing: error)])
        metrics?.increment("events_retried_total", labels)
        try? await message.nak(delay: delay)
        if pause { try await Task.sleep(for: delay) }
        return true
    }

    /// Acknowledges handled messages without waiting for the server's confirmation.
    private func acknowledge(_ messages: [JetStreamMessage]) {
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
        metrics?.increment("events_handled_total", ["durable": durable], by: acknowledged)
    }
}
