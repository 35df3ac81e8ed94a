import Contracts
import HTTPClient
import Logging
import Messaging
import NATS
import Runtime

/// The token-verifier process: answers `auth.verifier.verify` for every enabled provider.
public struct TokenVerifierServer: Service {
    private let configuration: TokenVerifierConfiguration
    private let logger: Logger

    /// Creates the service; nothing connects until `run()`.
    public init(configuration: TokenVerifierConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        let client = HTTPClient(logger: logger.named("http-client"))
        defer { client.shutdown() }
        var verifiers: [Provider: OIDCVerifier] = [:]
        for (provider, settings) in configuration.providers {
            let cache = JWKSCache(url: settings.jwksURL, client: client, timeout: configuration.providerTimeout,
                                  logger: logger.with(["provider": provider.rawValue]))
            verifiers[provider] = OIDCVerifier(configuration: settings, keys: cache, clockSkew: configuration.clockSkew)
        }
        logger.info("providers enabled", ["providers": verifiers.keys.map(\.rawValue).sorted().joined(separator: ",")])

        let nats = try await NATSConnection.connectRetrying(url: configuration.natsURL, name: "token-verifier", logger: logger)
        let verifiersByProvider = verifiers
        let responder = Responder(connection: nats, endpoint: Endpoints.verify, queue: QueueGroups.tokenVerifier,
                                  logger: logger) { request in
            guard let verifier = verifiersByProvider[request.provider] else {
                throw ServiceFailure(.providerDisabled, "Sign-in with \(request.provider) is not enabled.")
            }
            return try await verifier.verify(token: request.token, nonce: request.nonce)
        }
        logger.info("token-verifier ready")
        let ping = Responder.ping(connection: nats, queueGroup: QueueGroups.tokenVerifier, logger: logger)
        let discovery = ServiceDiscovery(connection: nats, name: QueueGroups.tokenVerifier,
                                         description: "Proves provider tokens", services: [ping, responder], logger: logger)
        try await ServiceGroup(services: [ping, responder, discovery], logger: logger).run()
        await nats.drainAndClose()
    }
}
