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

    /// One group of named services: `management`, `nats` (opened inside the group and closed after everything
    /// else stopped, so a signal stops the verifier in any state) and `http-client`, then the `providers`
    /// prelude, which the endpoints follow once NATS is connected. The stream set-up (`event-stream`) is the
    /// prelude of the revocation consumer only: tokens are verified while JetStream is down.
    public func run() async throws {
        let readiness = Readiness()
        let metrics = MetricsRegistry()
        let management = ManagementServer(configuration: configuration.management, metrics: metrics, readiness: readiness, logger: logger)
        let nats = ResourceService.nats(url: configuration.natsURL, access: configuration.natsAccess, name: "token-verifier", logger: logger)
        let logger = self.logger
        let client = ResourceService("http-client") {
            HTTPClient(logger: logger.named("http-client"))
        } close: { client in
            client.shutdown()
        }
        let providers = ClosurePrelude("providers") {
            services(nats: try await nats.value, client: try await client.value, readiness: readiness, metrics: metrics)
        }
        try await ServiceGroup(services: [management, nats, client, providers], logger: logger).run()
    }

    /// The endpoints, the revocation consumer behind its stream set-up, and service discovery.
    private func services(nats: NATSConnection, client: HTTPClient, readiness: Readiness, metrics: MetricsRegistry) -> [any Service] {
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
        let discovery = ServiceDiscovery(connection: nats, serviceName: QueueGroups.tokenVerifier,
                                         description: "Proves provider tokens", services: [ping] + endpoints, logger: logger)
        return [ping] + endpoints + [revocations, discovery]
    }
}
