import Contracts
import Foundation
import JSON
import Logging
import NATS
import Postgres
import Runtime

/// Publishes the events a service wrote to its outbox table (in the transaction of the change they
/// announce) to JetStream, and deletes each once the stream stored it, so a crash between commit and
/// publish loses nothing.
///
/// Replicas share the table: each claims a batch of due rows in key order with a lease
/// (``lease``), so two replicas never publish a row at once and the rows of a replica that died
/// come back once its lease ran out. The rows are sent in key order without waiting between them,
/// with the event ID as `Nats-Msg-Id` (JetStream drops the copy a crash between publish and delete
/// sends again), and their acknowledgements are awaited together; the stored ones are deleted in
/// one statement. No transaction or row lock is held while publishing. The failed ones are handed
/// back at once (so the next try publishes them first) and the relay waits, longer after each
/// failure in a row (``backoff(failures:)``).
///
/// It publishes soon after ``signal()`` (call it after a commit that wrote events): at once when idle,
/// under load once per ``roundSpacing`` with every event written meanwhile; and every `pollInterval`
/// for rows no signal announced (another replica's, or one that died).
public struct Outbox: Service {
    /// Where a service keeps its events: the table, its ordering key and the columns a message is made of.
    public struct Table: Sendable {
        /// The schema-qualified table name (`member.outbox`); it has `attempts` and `available_at` columns.
        public var name: String
        /// The `bigint` key that orders the rows (the order they were written in).
        public var key: String
        /// The columns read for ``Outbox/Message/init(_:)``'s row.
        public var columns: [String]

        /// A table description; the names are the code's own, never input.
        public init(name: String, key: String, columns: [String]) {
            self.name = name
            self.key = key
            self.columns = columns
        }
    }

    /// One event as published: its subject, encoded envelope and ID.
    public struct Message: Sendable {
        /// The subject (`events.member.deleted`).
        public var subject: String
        /// The encoded ``EventEnvelope``.
        public var payload: [UInt8]
        /// The event ID, sent as `Nats-Msg-Id`.
        public var id: String

        /// The envelope of `data` as an event of `type` with `id`, which happened at `occurredAt`.
        public init<Payload>(_ type: EventType<Payload>, _ data: Payload, id: String, occurredAt: Date) throws {
            subject = type.subject
            payload = try MessageCoding.encode(EventEnvelope(type, data, id: id, occurredAt: occurredAt))
            self.id = id
        }
    }

    /// Rows claimed at once.
    public static let batchSize = 256
    /// The shortest time between the starts of two rounds that are not full batches: an event waits at
    /// most this long for the events of other commits to go with it (one claim and one delete for all).
    public static let roundSpacing = Duration.milliseconds(20)
    /// How long a claim holds before another replica may take the row (seconds).
    public static let lease = 30
    /// The longest a row that cannot be made into an event waits before it is tried again (seconds); the
    /// first waits are shorter, so a replica of a newer version that knows the row publishes it soon.
    public static let parkedFor = 3600
    /// A parked row's wait: 15 s doubling with each claim of the row, at most ``parkedFor``. The SQL computes
    /// it from these and the row's claim count `attempts`, already 1 at the first claim: the wait is
    /// `parking.ceiling(afterFailures: attempts + 1)`, 30 s after the first claim.
    static let parking = Backoff(first: .seconds(15), cap: .seconds(parkedFor))

    /// The rows: the service's table in PostgreSQL (``OutboxTable``), memory in `PersistenceTests`.
    let rows: any OutboxRows
    /// Where the events go: JetStream, or a stand-in in `PersistenceTests`.
    let events: any EventPublishing
    let pollInterval: Duration
    let logger: Logger
    /// Signalled after a commit that may have written events (``signal()``); a store that writes them
    /// holds this, not the outbox, so it can be tested without NATS.
    public let wakeup = Wakeup()

    /// An outbox on `table`; `message` makes the event of one row, or returns nil (or throws) for a row
    /// this replica cannot publish: it is logged and kept aside for a while (at most ``parkedFor`` seconds),
    /// then tried again.
    public init(table: Table, database: PostgresClient, connection: NATSConnection, pollInterval: Duration = .seconds(1),
                logger: Logger, message: @escaping @Sendable (PostgresRow) throws -> Message?) {
        self.init(rows: OutboxTable(table: table, database: database, message: message), events: connection.jetStream,
                  pollInterval: pollInterval, logger: logger)
    }

    /// An outbox on `rows`, publishing to `events`.
    init(rows: any OutboxRows, events: any EventPublishing, pollInterval: Duration = .seconds(1), logger: Logger) {
        self.rows = rows
        self.events = events
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Publishes soon: call after a commit that may have written events.
    public func signal() {
        wakeup.signal()
    }

    public var name: String { "outbox" }

    public func run() async throws {
        var failures = 0
        while !Task.isCancelled {
            let started = ContinuousClock.now
            let outcome = await publishBatch()
            switch outcome {
            case .failed:
                failures += 1
                try? await Task.sleep(for: Self.backoff(failures: failures))
            case .published(let count):
                failures = 0
                guard count < Self.batchSize else { continue }
                await wakeup.wait(upTo: pollInterval)
                // Under load, the events of many commits go in one round: a round that published starts the
                // next at most `roundSpacing` later (after an empty one, a signal is served at once).
                let next = started.advanced(by: Self.roundSpacing)
                if count > 0, ContinuousClock.now < next { try? await Task.sleep(until: next) }
            }
        }
    }

    /// What one round did.
    enum Outcome: Equatable {
        /// Every claimed row was published (or kept aside); `count` rows were claimed.
        case published(Int)
        /// The database or a publish failed; the unpublished rows are handed back.
        case failed
    }

    /// Claims due rows, publishes them together (sent in key order, acknowledgements awaited at once),
    /// deletes the stored ones and hands back the failed ones.
    func publishBatch() async -> Outcome {
        let claimed: [OutboxRow]
        do {
            claimed = try await rows.claim()
        } catch {
            logger.warning("outbox not readable; retrying", ["db.table": rows.tableName, "error": String(describing: error)])
            return .failed
        }
        guard !claimed.isEmpty else { return .published(0) }
        var parked: [Int64] = []
        var outgoing: [(key: Int64, message: Message)] = []
        for row in claimed {
            switch row.message {
            case .success(let message?):
                outgoing.append((row.key, message))
            case .success(nil):
                // Kept, not deleted: a replica of a newer version may know the row (a rolling upgrade), and
                // an operator can mend it; meanwhile it does not hold up the rows after it.
                parked.append(row.key)
            case .failure(let error):
                logger.error("unreadable outbox row kept aside; tried again later",
                             ["db.table": rows.tableName, "outbox.key": String(row.key), "error": String(describing: error)])
                parked.append(row.key)
            }
        }
        // Sent in key order without waiting between them; the acknowledgements are awaited together.
        let results = await events.publishAll(outgoing.map(\.message))
        var done: [Int64] = []
        var failed: [(message: Message, error: any Error)] = []
        for (item, result) in zip(outgoing, results) {
            switch result {
            case .success: done.append(item.key)
            case .failure(let error): failed.append((item.message, error))
            }
        }
        if let first = failed.first {
            logger.warning("events not published yet; retrying",
                           ["nats.subject": first.message.subject, "event.id": first.message.id, "error": String(describing: first.error),
                            "outbox.failed": String(failed.count)])
        }
        do {
            let settled = Set(done).union(parked)
            try await rows.finish(published: done, parked: parked, handBack: claimed.map(\.key).filter { !settled.contains($0) })
        } catch {
            // The published rows go again after the lease; JetStream drops the copies by event ID.
            logger.warning("outbox rows not updated; they are published again after the lease",
                           ["db.table": rows.tableName, "error": String(describing: error)])
            return .failed
        }
        return failed.isEmpty ? .published(claimed.count) : .failed
    }

    /// How long to wait after failed rounds in a row: 1 s, 2 s, 4 s ... at most 30 s, each between half
    /// and all of that (so replicas that failed together do not retry together).
    static let rounds = Backoff(first: .seconds(1), cap: .seconds(30), jitter: 0.5...1.0)

    /// The wait after `failures` failed rounds in a row (``rounds``).
    static func backoff(failures: Int) -> Duration {
        rounds.delay(afterFailures: failures)
    }
}
