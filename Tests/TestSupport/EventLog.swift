import Contracts
import Foundation
import JSON
import Logging
import Messaging
import NATS
import Synchronization

/// Every event a stack's stream stores from the moment the stack starts, read by one follower (an
/// ordered, ephemeral consumer of `events.>` that acknowledges nothing and leaves no consumer behind)
/// and kept for the tests' lookups: a lookup reads what was recorded, not the stream again.
final class EventLog: Sendable {
    private struct Entry: Sendable {
        let subject: String
        let payload: [UInt8]
    }

    private let entries = Mutex<[Entry]>([])

    /// Starts following the stack's stream (made here if the services have not made it yet) from `since`.
    static func start(_ connection: NATSConnection, since: Date) async throws -> EventLog {
        try await EventPublisher(connection: connection, logger: Logger(label: "test-events", level: .error)).ensureStream()
        let follower = try await connection.jetStream.follow(stream: Events.stream, subject: Events.subjects[0], since: since)
        let log = EventLog()
        // Reads for as long as the process runs, as the stack it records does.
        Task {
            for await message in follower.messages {
                log.entries.withLock { $0.append(Entry(subject: message.subject, payload: message.payload)) }
            }
        }
        return log
    }

    /// The events of `type` recorded so far that `matches`, in stream order. An event of the type that
    /// does not decode is an error, not a miss.
    func events<Payload>(_ type: EventType<Payload>,
                         where matches: (Payload) -> Bool) throws -> [EventEnvelope<Payload>] {
        let recorded = entries.withLock { $0 }.filter { $0.subject == type.subject }
        return try recorded.map { try MessageCoding.decode(EventEnvelope<Payload>.self, from: $0.payload) }
            .filter { matches($0.data) }
    }

    /// The events of `type` that `matches`, waiting until `count` were recorded or `timeout` passed.
    func events<Payload>(_ type: EventType<Payload>, timeout: Duration, count: Int,
                         where matches: (Payload) -> Bool) async throws -> [EventEnvelope<Payload>] {
        let found = try await poll(timeout: timeout, every: .milliseconds(50), { try events(type, where: matches) },
                                   until: { $0.count >= count })
        return Array(found.prefix(count))
    }
}
