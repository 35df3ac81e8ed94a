import Contracts
import Logging
import NATS
import Runtime

/// The services of a process that need the events stream (its outbox, its durable consumers), started
/// once the stream is set up: the set-up is their ``Prelude``, retried while JetStream does not answer.
/// In a ``ServiceGroup`` they then join the group in its place.
///
/// The process's responders run beside them and serve at once: while JetStream is down, an outbox keeps
/// its events in PostgreSQL and the consumers' events wait in the stream, so logins do not depend on it.
///
/// While they run, the stream is looked up every `recheckInterval` and made again when it is gone (a
/// JetStream whose storage was lost): the outbox's events, kept meanwhile, then find it again.
public struct EventStreamServices: Prelude {
    private let connection: NATSConnection
    private let settings: EventStreamSettings
    private let services: [any Service]
    private let recheckInterval: Duration
    /// Its log, and the log of the group it runs its services in outside a process's group.
    public let logger: Logger

    /// Groups `services` behind the set-up of the events stream with `settings` on `connection`.
    public init(connection: NATSConnection, settings: EventStreamSettings, services: [any Service],
                recheckInterval: Duration = .seconds(30), logger: Logger) {
        self.connection = connection
        self.settings = settings
        self.services = services
        self.recheckInterval = recheckInterval
        self.logger = logger
    }

    public var name: String { "event-stream" }

    /// Sets up the stream, waiting while JetStream does not answer; then the services follow, behind the
    /// keeper that makes the stream again when it is lost.
    public func prepare() async throws -> [any Service] {
        let publisher = EventPublisher(connection: connection, logger: logger)
        await publisher.ensureStreamRetrying(settings)
        try Task.checkCancellation()
        return [ClosureService("event-stream-keeper") { await keep(publisher) }] + services
    }

    /// Makes the stream again whenever a look-up finds it gone; a JetStream that does not answer is left
    /// to the next look-up (the outbox and the consumers say so themselves).
    private func keep(_ publisher: EventPublisher) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: recheckInterval)
            guard !Task.isCancelled else { return }
            if (try? await publisher.ensureStream(settings, reportDifferences: false)) == true {
                logger.warning("the event stream was gone and is made again; events stored in it before are lost to consumers that had not read them",
                               ["stream": Events.stream])
            }
        }
    }
}
