import Contracts
import JSON
import Logging
import NATS
import Runtime

/// Publishes domain events to the JetStream stream, creating the stream when it is missing.
/// The event's `id` is the JetStream message ID, so a retried publish is stored once.
public struct EventPublisher: Sendable {
    private let jetStream: JetStream
    private let logger: Logger

    /// Creates a publisher on `connection`.
    public init(connection: NATSConnection, logger: Logger) {
        self.jetStream = connection.jetStream
        self.logger = logger
    }

    /// Like ``ensureStream(_:)``, trying again every second while JetStream does not answer (a cluster
    /// electing its leader, a node of an R3 stream down); returns when done or when the task is cancelled.
    public func ensureStreamRetrying(_ settings: EventStreamSettings) async {
        _ = try? await Retry.untilAvailable(logger: logger, warning: "JetStream not ready, retrying",
                                            isUnavailable: { _ in true }) {
            try await ensureStream(settings)
        }
    }

    /// Creates the events stream with `settings` when it is missing (idempotent; replicas may race). An
    /// existing stream keeps the operator's limits and replicas: what differs is logged when
    /// `reportDifferences`. Returns whether this call created the stream.
    @discardableResult
    public func ensureStream(_ settings: EventStreamSettings = EventStreamSettings(), reportDifferences: Bool = true) async throws -> Bool {
        // Never edited here (the stream-admin identity does that); missing subjects are among the differences.
        let outcome = try await jetStream.ensureStream(name: Events.stream, subjects: Events.subjects,
                                                       maxAge: settings.maxAge, replicas: settings.replicas)
        if outcome.created {
            logger.info("event stream created", ["stream": Events.stream, "stream.max_age_seconds": String(settings.maxAge.components.seconds),
                                                 "stream.replicas": String(settings.replicas)])
        }
        if reportDifferences, !outcome.differences.isEmpty {
            logger.warning("event stream settings differ from EVENTS_MAX_AGE/EVENTS_REPLICAS or its subjects; the stream's own are kept (stream-admin edits them)",
                           ["stream": Events.stream, "stream.differences": outcome.differences.joined(separator: "; ")])
        }
        return outcome.created
    }

    /// Publishes one event and waits for the stream to store it.
    public func publish<Payload>(_ type: EventType<Payload>, _ data: Payload, id: String? = nil) async throws {
        let envelope = id.map { EventEnvelope(type, data, id: $0) } ?? EventEnvelope(type, data)
        _ = try await jetStream.publish(type.subject, try MessageCoding.encode(envelope), messageID: envelope.id)
        logger.debug("event published", ["event.type": type.name, "event.id": envelope.id])
    }
}
