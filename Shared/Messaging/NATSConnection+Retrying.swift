import Logging
import NATS
import Runtime

extension NATSConnection {
    /// Connects to NATS, trying again every second until it answers or the task is cancelled,
    /// so a service that starts before nats-server waits for it instead of exiting.
    public static func connectRetrying(url: String, access: Access, name: String, logger: Logger) async throws -> NATSConnection {
        let configuration = NATSConnection.Configuration(url: url, name: name, access: access)
        return try await Retry.untilAvailable(logger: logger, warning: "NATS not reachable yet, retrying", fields: ["nats.url": url],
                                              isUnavailable: { _ in true }) {
            try await NATSConnection.connect(configuration, logger: logger.named("nats"))
        }
    }
}

extension ResourceService where Value == NATSConnection {
    /// The service's NATS connection as a service of its group: connects (waiting while NATS does not
    /// answer, see ``NATSConnection/connectRetrying(url:access:name:logger:)``) and drains and closes it,
    /// awaited, when the group stops.
    public static func nats(url: String, access: NATSConnection.Access, name: String, logger: Logger) -> ResourceService<NATSConnection> {
        ResourceService("nats") {
            try await NATSConnection.connectRetrying(url: url, access: access, name: name, logger: logger)
        } close: { connection in
            await connection.drainAndClose()
        }
    }
}
