import Contracts
import JSON
import Logging
import Metrics
import NATS
import Runtime

/// One durable JetStream consumer of one event type, shared by every replica that uses the same
/// durable name: each event goes to one of them, is decoded with the message coder and handed to
/// `handler`, whose ``Outcome`` acknowledges it or has it delivered again later.
///
/// An event that does not decode is terminated (logged as an error), never retried. A handler that
/// throws has the event retried after ``retryDelay(delivery:)``. While a handler works the consumer
/// tells the server so every third of the ack wait, until `maxHandlingTime` after the event was fetched (a hung handler then
/// lets the event go to another replica after the ack wait), and an acknowledgement that fails is sent
/// again, so an event is never left to come back only after the ack wait. A lost connection or a deleted
/// consumer is waited out and the consumer bound again.
public struct EventConsumer<Payload: Codable & Sendable>: Service {
    /// What to do with a handled event.
    public enum Outcome: Sendable, Equatable {
        /// Done: it is not delivered again.
        case ack
        /// Not done now: deliver it again (to any replica) after the delay.
        case retry(after: Duration)
    }

    /// The handler: the event and how often it was delivered (1 the first time).
    public typealias Handler = @Sendable (EventEnvelope<Payload>, _ delivery: Int) async throws -> Outcome

    let connection: NATSConnection
    let type: EventType<Payload>
    let durable: String
    let ackWait: Duration
    let maxHandlingTime: Duration
    let maxConcurrent: Int
    let metrics: MetricsRegistry?
    let logger: Logger
    let handler: Handler
    let beats: ProgressBeats

    /// A consumer of `type` through the durable consumer `durable`, handling up to `maxConcurrent` events at once.
    /// A handler's work is reported as progress until `maxHandlingTime` (default twenty ack waits) after the
    /// event was fetched, time spent waiting for a free handler included.
    public init(connection: NATSConnection, type: EventType<Payload>, durable: String, ackWait: Duration = .seconds(30),
                maxHandlingTime: Duration? = nil, maxConcurrent: Int = 1, metrics: MetricsRegistry? = nil, logger: Logger,
                handler: @escaping Handler) {
        self.connection = connection
        self.type = type
        self.durable = durable
        self.ackWait = ackWait
        self.maxHandlingTime = maxHandlingTime ?? ackWait * 20
        self.maxConcurrent = max(1, maxConcurrent)
        self.metrics = metrics
        self.logger = logger.with(["nats.durable": durable])
        self.handler = handler
        beats = ProgressBeats(interval: ackWait / 3, logger: self.logger)
        metrics?.describeCounter("events_handled_total", "Events handled and acknowledged, by durable consumer.")
        metrics?.describeCounter("events_retried_total", "Events declined for a later delivery, by durable consumer.")
        metrics?.describeCounter("events_failed_total", "Events that could not be read and were dropped, by durable consumer.")
    }

    /// The durable consumer's name.
    public var name: String { durable }

    public func run() async throws {
        await DurableBinding.run(logger: logger, bind: {
            try connection.jetStream.consume(stream: Events.stream, durable: durable, filterSubject: type.subject, ackWait: ackWait)
        }, consume: consume)
    }

    private func consume(_ consumer: JetStreamConsumer, onMessage: () -> Void) async throws -> DurableBinding.Next {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var inFlight = 0
            for try await message in consumer {
                onMessage()
                if inFlight >= maxConcurrent {
                    try await group.next()
                    inFlight -= 1
                }
                group.addTask { await process(message) }
                inFlight += 1
            }
            try await group.waitForAll()
        }
        return .bindAgain
    }

    /// Decodes, handles and acknowledges one message.
    func process(_ message: JetStreamMessage) async {
        let labels = ["durable": durable]
        let event: EventEnvelope<Payload>
        do {
            event = try MessageCoding.decode(EventEnvelope<Payload>.self, from: message.payload)
        } catch {
            logger.error("unreadable event dropped", ["nats.subject": message.subject, "nats.sequence": String(message.streamSequence)])
            metrics?.increment("events_failed_total", labels)
            await Acknowledgement.send(message, "terminate", logger: logger) { try await message.term() }
            return
        }
        let outcome: Outcome
        do {
            outcome = try await whileInProgress(message) { try await handler(event, message.deliveryCount) }
        } catch {
            let delay = Self.retryDelay(delivery: message.deliveryCount)
            logger.warning("event not handled yet; retrying", ["event.id": event.id, "delivery": String(message.deliveryCount),
                                                                 "retry.seconds": String(delay.components.seconds),
                                                                 "error": String(describing: error)])
            outcome = .retry(after: delay)
        }
        switch outcome {
        case .ack:
            metrics?.increment("events_handled_total", labels)
            await Acknowledgement.send(message, "ack", logger: logger) { try await message.ack() }
        case .retry(let delay):
            metrics?.increment("events_retried_total", labels)
            await Acknowledgement.send(message, "nak", logger: logger) { try await message.nak(delay: delay) }
        }
    }

    /// Runs `body` while the server is told every third of the ack wait that the message is still being worked
    /// on (``ProgressBeats``), until `maxHandlingTime` after it was fetched: a handler that hangs does not hold its
    /// event forever. The reports stop before the caller acknowledges.
    private func whileInProgress<T: Sendable>(_ message: JetStreamMessage, _ body: @Sendable () async throws -> T) async throws -> T {
        let token = beats.start(message, for: maxHandlingTime)
        defer { beats.stop(token) }
        return try await body()
    }

    /// The delay before a failed event is tried again: 1 s after the first delivery, doubling each
    /// time, at most a minute.
    public static var redelivery: Backoff { Backoff(first: .seconds(1), cap: .seconds(60)) }

    /// The delay before delivery `delivery + 1` of a failed event (``redelivery``).
    public static func retryDelay(delivery: Int) -> Duration {
        redelivery.delay(afterFailures: delivery)
    }
}
