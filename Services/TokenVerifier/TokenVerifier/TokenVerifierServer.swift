import Contracts
import Crypto
import HTTPClient
import Logging
import Management
import Metrics
import Messaging
import NATS
import Runtime

/// The token-verifier process: proves provider tokens for logins and links (`auth.verifier.login`,
/// `auth.verifier.link`, handed on to the member-service), Apple's notifications
/// (`auth.verifier.apple-notification`, likewise), answers `auth.verifier.verify`, and revokes the grants
/// of deleted members.
public struct TokenVerifierServer: Service {
    private let configuration: TokenVerifierConfiguration
    private let logger: Logger

    /// Creates the service; nothing connects until `run()`.
    public init(configuration: TokenVerifierConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        try await ManagementServer.serving(configuration.management, logger: logger) { try await serve($0, metrics: $1) }
    }

    /// The NATS connection is a service of the group, opened inside it and closed after everything else
    /// stopped, so a signal stops the verifier in any state. The stream set-up is the prelude of the
    /// revocation consumer only: tokens are verified while JetStream is down.
    private func serve(_ readiness: Readiness, metrics: MetricsRegistry) async throws {
        let nats = ResourceService.nats(url: configuration.natsURL, access: configuration.natsAccess, name: "token-verifier", logger: logger)
        let verifier = ClosureService { try await serve(nats: try await nats.value, readiness: readiness, metrics: metrics) }
        try await ServiceGroup(services: [nats, verifier], logger: logger).run()
    }

    private func serve(nats: NATSConnection, readiness: Readiness, metrics: MetricsRegistry) async throws {
        let client = HTTPClient(logger: logger.named("http-client"))
        defer { client.shutdown() }
        let sealer = configuration.providerTokenKey.map { CredentialSealer(key: $0) }
        if sealer == nil {
            logger.warning("PROVIDER_TOKEN_KEY is not set: Apple and Naver grants are not kept and cannot be revoked on account deletion")
        }
        let appleTokens = configuration.appleCredentials.map {
            AppleTokenClient(credentials: $0, client: client, timeout: configuration.providerTimeout, logger: logger)
        }
        let naver = configuration.naver.map {
            NaverVerifier(configuration: $0, client: client, timeout: configuration.providerTimeout, sealer: sealer,
                          logger: logger.with(["provider": Provider.naver.rawValue]))
        }

        var verifiers: [Provider: any ProviderTokenVerifier] = [:]
        var appleNotifications: AppleNotificationVerifier?
        for (provider, settings) in configuration.providers {
            let cache = JWKSCache(url: settings.jwksURL, client: client, timeout: configuration.providerTimeout,
                                  logger: logger.with(["provider": provider.rawValue]))
            let oidc = OIDCVerifier(configuration: settings, keys: cache, clockSkew: configuration.clockSkew)
            if provider == .apple {
                verifiers[provider] = AppleVerifier(oidc: oidc, tokens: appleTokens, sealer: sealer, logger: logger)
                appleNotifications = AppleNotificationVerifier(oidc: oidc)
            } else {
                verifiers[provider] = oidc
            }
        }
        if let naver { verifiers[.naver] = naver }
        logger.info("providers enabled", ["providers": verifiers.keys.map(\.rawValue).sorted().joined(separator: ","),
                                          "apple.code_exchange": appleTokens == nil ? "off" : "on"])

        // Every replica derives the nonces' key from the shared PROVIDER_TOKEN_KEY; without one (nonces then
        // required of no provider) each replica has its own, and a nonce is good only at the replica that issued it.
        let nonces = configuration.providerTokenKey.map(ServerNonce.derived(from:)) ?? ServerNonce(key: SecureRandom.bytes(32))
        let handlers = VerifierHandlers(verifiers: verifiers, appleNotifications: appleNotifications, nonces: nonces,
                                        requireServerNonce: configuration.requireServerNonce)
        let queue = QueueGroups.tokenVerifier
        // A signature check computes before it suspends: these start on Swift's pool, not cnats's thread.
        let endpoints: [any Service] = [
            Responder(connection: nats, endpoint: Endpoints.verify, queue: queue, startsOnDeliveryThread: false, logger: logger,
                      handler: handlers.verify),
            Responder(connection: nats, endpoint: Endpoints.login, queue: queue, startsOnDeliveryThread: false, logger: logger,
                      relaying: handlers.login),
            Responder(connection: nats, endpoint: Endpoints.link, queue: queue, startsOnDeliveryThread: false, logger: logger,
                      relaying: handlers.link),
            Responder(connection: nats, endpoint: Endpoints.verifyAppleNotification, queue: queue, logger: logger,
                      relaying: handlers.appleNotification),
            Responder(connection: nats, endpoint: Endpoints.issueNonce, queue: queue, logger: logger, handler: handlers.issueNonce),
        ]
        // Revocations wait for the stream; the verification endpoints do not.
        let revocations = EventStreamServices(connection: nats, settings: configuration.events, services: [RevocationConsumer.make(
            connection: nats, revoker: GrantRevoker(sealer: sealer, apple: appleTokens, naver: naver, logger: logger.named("revocation")),
            metrics: metrics, logger: logger.named("revocation"))], logger: logger)
        let ping = Responder.ping(connection: nats, queueGroup: QueueGroups.tokenVerifier, logger: logger)
        readiness.require(nats: nats, endpoints: [ping] + endpoints)
        readiness.started()
        logger.info("token-verifier ready")
        let discovery = ServiceDiscovery(connection: nats, name: QueueGroups.tokenVerifier,
                                         description: "Proves provider tokens", services: [ping] + endpoints, logger: logger)
        try await ServiceGroup(services: [ping] + endpoints + [revocations, discovery], logger: logger).run()
    }
}
