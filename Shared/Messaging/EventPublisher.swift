import Contracts
import Logging
import NATS

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

    /// Creates or updates the events stream (idempotent; replicas may race).
    public func ensureStream() async throws {
        try await jetStream.ensureStream(name: Events.stream, subjects: Events.subjects)
    }

    /// Publishes one event and waits for the stream to store it.
    public func publish<Payload>(_ type: EventType<Payload>, _ data: Payload, id: String? = nil) async throws {
        let envelope = id.map { EventEnvelope(type, data, id: $0) } ?? EventEnvelope(type, data)
        _ = try await jetStream.publish(type.subject, try MessageCoding.encode(envelope), messageID: envelope.id)
        logger.debug("event published", ["event.type": type.name, "event.id": envelope.id])
    }
}
