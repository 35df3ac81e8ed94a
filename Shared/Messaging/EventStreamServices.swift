import Logging
import NATS
import Runtime

/// The services of a process that need the events stream (its outbox, its durable consumers), started
/// once the stream is set up: the set-up is their prelude, retried while JetStream does not answer.
///
/// The process's responders run beside them and serve at once: while JetStream is down, an outbox keeps
/// its events in PostgreSQL and the consumers' events wait in the stream, so logins do not depend on it.
public struct EventStreamServices: Service {
    private let connection: NATSConnection
    private let settings: EventStreamSettings
    private let services: [any Service]
    private let logger: Logger

    /// Groups `services` behind the set-up of the events stream with `settings` on `connection`.
    public init(connection: NATSConnection, settings: EventStreamSettings, services: [any Service], logger: Logger) {
        self.connection = connection
        self.settings = settings
        self.services = services
        self.logger = logger
    }

    public func run() async throws {
        await EventPublisher(connection: connection, logger: logger).ensureStreamRetrying(settings)
        try Task.checkCancellation()
        try await ServiceGroup(services: services, logger: logger).run()
    }
}
