import Logging
import NATS

extension NATSConnection {
    /// Connects to NATS, trying again every second until it answers or the task is cancelled,
    /// so a service that starts before nats-server waits for it instead of exiting.
    public static func connectRetrying(url: String, access: Access, name: String, logger: Logger) async throws -> NATSConnection {
        let configuration = NATSConnection.Configuration(url: url, name: name, access: access)
        var warned = false
        while true {
            try Task.checkCancellation()
            do {
                return try await NATSConnection.connect(configuration, logger: logger.named("nats"))
            } catch {
                if !warned {
                    logger.warning("NATS not reachable yet, retrying", ["nats.url": url, "error": String(describing: error)])
                    warned = true
                }
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}
