import HTTPClient
import Logging
import Management
import Messaging
import Metrics
import NATS
import Runtime

/// The webhook-relay process: the endpoints of `WEBHOOKS_FILE`, each fed by its own durable consumer of the
/// event stream (``WebhookRelay``), and the management port (`/readyz`, `/metrics`).
///
/// One group of named services: `management` and `nats`, then the relay. It creates no stream (it waits for the
/// services that publish to make it) and calls no service.
public struct WebhookRelayServer: Service {
    private let configuration: WebhookRelayConfiguration
    private let logger: Logger

    /// Creates the service; nothing connects until `run()`.
    public init(configuration: WebhookRelayConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// The largest answer read from an endpoint; the rest is dropped unread.
    static let maxAnswerSize = 65_536

    public func run() async throws {
        let file = try WebhookRelayConfiguration.followedFile(configuration.webhooksFile, allowHTTP: configuration.allowHTTP)
        logger.info("webhooks file read", ["endpoints": String(file.value.count)])
        if configuration.allowPrivateAddresses {
            logger.warning("WEBHOOK_ALLOW_PRIVATE_ADDRESSES is on: webhooks may be sent to loopback and private addresses (development only)")
        }
        let readiness = Readiness()
        let metrics = MetricsRegistry()
        let management = ManagementServer(configuration: configuration.management, metrics: metrics, readiness: readiness, logger: logger)
        let nats = ResourceService.nats(url: configuration.natsURL, access: configuration.natsAccess, name: "webhook-relay", logger: logger)
        let client = HTTPClient(configuration: Self.clientConfiguration(configuration), logger: logger.named("http-client"))
        let relay = ClosurePrelude("relay") { [configuration, logger] in
            let connection = try await nats.value
            readiness.require("nats") { connection.isConnected }
            readiness.started()
            let settings = EndpointRelay.Settings(timeout: configuration.timeout, maxAge: configuration.events.maxAge,
                                                  backoff: configuration.retryBackoff)
            let feeds = StreamFeeds(connection: connection, maxAge: configuration.events.maxAge, concurrency: configuration.concurrency,
                                    logger: logger)
            let poster = HTTPWebhookPoster(client: client, maxAnswerSize: Self.maxAnswerSize)
            return [WebhookRelay(file: file, settings: settings, feeds: feeds, poster: poster,
                                 reloadInterval: configuration.reloadInterval, metrics: metrics, logger: logger)]
        }
        defer { client.shutdown() }
        try await ServiceGroup(services: [management, nats, relay], logger: logger).run()
    }

    /// The HTTP client's settings: public addresses only unless allowed, answers cut at 64 KiB.
    static func clientConfiguration(_ configuration: WebhookRelayConfiguration) -> HTTPClient.Configuration {
        // The headers of an answer get 64 KiB beside its body's (each request cuts the body there).
        HTTPClient.Configuration(maxConnectionsPerHost: configuration.concurrency, maxResponseSize: 2 * maxAnswerSize,
                                 userAgent: "social-login-webhooks/1",
                                 destinations: configuration.allowPrivateAddresses ? .any : .publicOnly)
    }
}
