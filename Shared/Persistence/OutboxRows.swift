import NATS

/// An outbox's rows, as the relay needs them: the service's PostgreSQL table (``OutboxTable``), memory in
/// `PersistenceTests`. A claimed row is leased to this replica until it is finished or the lease runs out.
protocol OutboxRows: Sendable {
    /// The table's name, for logs.
    var tableName: String { get }
    /// Takes up to ``Outbox/batchSize`` due rows for ``Outbox/lease`` seconds; returns them in key order.
    func claim() async throws -> [OutboxRow]
    /// Deletes the `published` rows, makes the `parked` ones due again later (``Outbox/parking``) and the
    /// `handBack` ones due at once.
    func finish(published: [Int64], parked: [Int64], handBack: [Int64]) async throws
}

/// One claimed row: its key, and the event it makes (nil, or an error, for a row this replica cannot publish).
struct OutboxRow: Sendable {
    let key: Int64
    let message: Result<Outbox.Message?, any Error>
}

/// Where an outbox's events go: JetStream in the services, a stand-in in `PersistenceTests`.
protocol EventPublishing: Sendable {
    /// Sends `messages` in order without waiting between them, each with its event ID for de-duplication, and
    /// returns each one's outcome once every acknowledgement came (or timed out).
    func publishAll(_ messages: [Outbox.Message]) async -> [Result<Void, any Error>]
}

extension JetStream: EventPublishing {
    func publishAll(_ messages: [Outbox.Message]) async -> [Result<Void, any Error>] {
        await publishAll(messages.map { JetStream.OutgoingMessage($0.subject, $0.payload, messageID: $0.id) }).map { $0.map { _ in } }
    }
}
