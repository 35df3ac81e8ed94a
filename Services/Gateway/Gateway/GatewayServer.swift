import Collections
import HTTPServer
import Logging
import Management
import Messaging
import Metrics
import Runtime

/// The gateway process: the HTTP API on libmicrohttpd, fanning requests out over NATS.
///
/// One group of named services: `management` (at once, so `/healthz` answers), `nats` (a
/// ``ResourceService``, as in every service), `services-client` and `http`, the API port, which opens once
/// NATS is connected, or after 5 s without it (requests that need a service then get 503 until it
/// connects). It stops in the reverse order: `/readyz` turns 503, the API port stops accepting and answers
/// what is in flight, and only then NATS drains.
public struct GatewayServer: Service {
    private let configuration: GatewayConfiguration
    private let logger: Logger
    private let onListening: @Sendable (Int) -> Void
    private let onManagementListening: @Sendable (Int) -> Void

    /// Creates the gateway; `onListening` is told the bound API port, `onManagementListening` the management
    /// port (useful with port 0). The management port starts first.
    public init(configuration: GatewayConfiguration, logger: Logger, onListening: @escaping @Sendable (Int) -> Void = { _ in },
                onManagementListening: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.configuration = configuration
        self.logger = logger
        self.onListening = onListening
        self.onManagementListening = onManagementListening
    }

    public func run() async throws {
        let metrics = MetricsRegistry()
        let handler = APIHandler(configuration: configuration, logger: logger, metrics: metrics)
        let management = ManagementServer(configuration: configuration.management, metrics: metrics,
                                          readiness: handler.readiness, logger: logger, onListening: onManagementListening)
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
        let configuration = self.configuration
        let logger = self.logger
        let onListening = self.onListening
        handler.readiness.require("nats") { handler.client?.isConnected ?? false }
        handler.readiness.require("access-token keys and ended sessions") { handler.accessTokens.isLoaded }
        // The API port is bound (after NATS connects, below); until then a probe must not route here.
        handler.readiness.require("http") { server.port != 0 }
        handler.readiness.started()
        let nats = ResourceService.nats(url: configuration.natsURL, access: configuration.natsAccess, name: "gateway", logger: logger)
        let connected = Gate()
        let services = ClosureService("services-client") {
            // Every reply sealed to this process: the gateway's seed, stolen and used elsewhere, reads no one's tokens.
            let client = ServiceClient(connection: try await nats.value, logger: logger, metrics: metrics, sealing: try ReplySeal())
            handler.client = client
            connected.open()
            logger.info("gateway connected to NATS")
            let follower = EndedSessionsFollower(sessions: handler.accessTokens.endedSessions, caughtUp: handler.accessTokens.caughtUp,
                                                 logger: logger)
            let following = Task { await follower.follow(client, timeout: configuration.serviceTimeout) }
            // Until cancelled: the gateway is ready for Bearer requests before the first one, not at it.
            await handler.accessTokens.keys.follow(client: client, timeout: configuration.serviceTimeout)
            following.cancel()
            await following.value
            handler.client = nil
        }
        let listener = ClosureService("http") {
            // The port is joined (with several gateways, its SO_REUSEPORT group) once NATS is connected, so a
            // restarted gateway takes no connection it could only answer 503; after 5 s it listens anyway and
            // answers 503 itself while NATS is away.
            _ = await connected.wait(timeout: .seconds(5))
            if Task.isCancelled { return }
            try server.start()
            logger.info("gateway listening", ["http.host": configuration.host, "http.port": String(server.port)])
            onListening(server.port)
            try await server.run()
        }
        // Stopped last started first: HTTP drains (no new connections, in-flight requests answered), then the
        // services' client lets go, and only then NATS drains and closes; the management port answers throughout.
        try await ServiceGroup(services: [management, nats, services, listener], logger: logger).run()
    }
}
