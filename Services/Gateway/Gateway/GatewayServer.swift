import HTTPServer
import Logging
import Messaging
import Metrics
import NATS
import Runtime

/// The gateway process: the HTTP API on libmicrohttpd, fanning requests out over NATS.
///
/// HTTP starts at once (so `/healthz` answers); NATS connects in the background, and until it
/// does, requests that need a service get 503.
public struct GatewayServer: Service {
    private let configuration: GatewayConfiguration
    private let logger: Logger
    private let onListening: @Sendable (Int) -> Void

    /// Creates the gateway; `onListening` is told the bound port (useful with port 0).
    public init(configuration: GatewayConfiguration, logger: Logger, onListening: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.configuration = configuration
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        let metrics = MetricsRegistry()
        let handler = APIHandler(configuration: configuration, logger: logger, metrics: metrics)
        var http = HTTPServer.Configuration()
        http.host = configuration.host
        http.port = configuration.port
        http.maxBodySize = configuration.maxBodySize
        http.threads = configuration.httpThreads
        http.connectionTimeout = configuration.connectionTimeout
        http.perAddressConnectionLimit = configuration.connectionsPerAddress
        // Several gateway processes may share the port (GATEWAY_REPLICAS).
        http.reusePort = true
        let server = HTTPServer(configuration: http, logger: logger.named("http")) { request in
            await handler.handle(request)
        }
        try server.start()
        logger.info("gateway listening", ["http.host": configuration.host, "http.port": String(server.port)])
        onListening(server.port)

        let configuration = self.configuration
        let logger = self.logger
        let connector = ClosureService {
            let nats = try await NATSConnection.connectRetrying(url: configuration.natsURL, name: "gateway", logger: logger)
            handler.client = ServiceClient(connection: nats, logger: logger, metrics: metrics)
            logger.info("gateway connected to NATS")
            let following = Task { await handler.accessTokens.followEndedSessions(nats) }
            await Task.sleepUntilCancelled()
            following.cancel()
            await following.value
            handler.client = nil
            await nats.drainAndClose()
        }
        try await ServiceGroup(services: [ClosureService { try await server.run() }, connector], logger: logger).run()
    }
}
