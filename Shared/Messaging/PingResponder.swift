import Contracts
import Logging
import NATS

extension Responder where Request == PingRequest, Reply == PingReply {
    /// Answers `auth.<queueGroup>.ping`, so the gateway's `/readyz` can see the service.
    public static func ping(connection: NATSConnection, queueGroup: String, logger: Logger) -> Responder {
        Responder(connection: connection, endpoint: Endpoints.ping(queueGroup), queue: queueGroup, logger: logger) { _ in
            PingReply(service: queueGroup)
        }
    }
}
