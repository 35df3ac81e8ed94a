import Contracts
import HTTPClient
import Logging
import Management
import Metrics
import Messaging
import NATS
import Runtime

/// The token-verifier process: answers `auth.verifier.verify` for every enabled provider and
/// `auth.verifier.apple-notification`, and revokes the grants of deleted members.
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

        let registry = verifiers
        let verify = Responder(connection: nats, endpoint: Endpoints.verify, queue: QueueGroups.tokenVerifier,
                               startsOnDeliveryThread: false,
                               logger: logger) { request in
            guard let verifier = registry[request.provider] else {
                throw ServiceFailure(.providerDisabled, "Sign-in with \(request.provider) is not enabled.")
            }
            return try await verifier.verify(request)
        }
        let notifications = Responder(connection: nats, endpoint: Endpoints.verifyAppleNotification,
                                      queue: QueueGroups.tokenVerifier, logger: logger) { [appleNotifications] request in
            guard let appleNotifications else {
                throw ServiceFailure(.providerDisabled, "Sign-in with Apple is not enabled.")
            }
            return try await appleNotifications.verify(request)
        }
        // Revocations wait for the stream; the verification endpoints do not.
        let revocations = EventStreamServices(connection: nats, settings: configuration.events, services: [RevocationConsumer.make(
            connection: nats, revoker: GrantRevoker(sealer: sealer, apple: appleTokens, naver: naver, logger: logger.named("revocation")),
            metrics: metrics, logger: logger.named("revocation"))], logger: logger)
        let ping = Responder.ping(connection: nats, queueGroup: QueueGroups.tokenVerifier, logger: logger)
        readiness.require(nats: nats, endpoints: [ping, verify, notifications])
        readiness.started()
        logger.info("token-verifier ready")
        let discovery = ServiceDiscovery(connection: nats, name: QueueGroups.tokenVerifier,
                                         description: "Proves provider tokens", services: [ping, verify, notifications], logger: logger)
        try await ServiceGroup(services: [ping, verify, notifications, revocations, discovery], logger: logger).run()
    }
}
