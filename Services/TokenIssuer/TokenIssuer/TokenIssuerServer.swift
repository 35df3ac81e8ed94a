import Contracts
import Crypto
import Foundation
import JOSE
import Logging
import Messaging
import NATS
import Persistence
import Postgres
import Runtime

/// The token-issuer process: migrates the `issuer` schema, loads its signing keys, then
/// answers its NATS endpoints (issue, refresh, JWKS).
public struct TokenIssuerServer: Service {
    private let configuration: TokenIssuerConfiguration
    private let logger: Logger

    /// Creates the service; nothing connects until `run()`.
    public init(configuration: TokenIssuerConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        var databaseConfiguration = try PostgresConfiguration(url: configuration.databaseURL)
        databaseConfiguration.poolSize = configuration.databasePoolSize
        databaseConfiguration.applicationName = "token-issuer"
        let database = PostgresClient(configuration: databaseConfiguration, logger: logger.named("postgres"))
        defer { Task { await database.close() } }
        try await database.migrateRetrying(schema: IssuerMigrations.schema, migrations: IssuerMigrations.all, logger: logger)

        let keys = SigningKeys(database: database, keyFile: configuration.signingKeyFile,
                               accessTokenTTL: configuration.accessTokenTTL, logger: logger)
        try await keys.load()
        let store = SessionStore(database: database, refreshTokenTTL: configuration.refreshTokenTTL,
                                 reuseGrace: configuration.refreshReuseGrace)
        let secret = try await store.successorSecret()
        let tokens = AccessTokens(keys: keys, configuration: configuration)

        let nats = try await NATSConnection.connectRetrying(url: configuration.natsURL, name: "token-issuer", logger: logger)
        let configuration = self.configuration
        let logger = self.logger
        let services: [any Service] = [
            Responder.ping(connection: nats, queueGroup: QueueGroups.tokenIssuer, logger: logger),
            Responder(connection: nats, endpoint: Endpoints.issueTokens, queue: QueueGroups.tokenIssuer, logger: logger) { request in
                guard request.memberId > 0 else { throw ServiceFailure.invalidRequest("memberId must be positive.") }
                guard (1...255).contains(request.deviceId.utf8.count) else {
                    throw ServiceFailure.invalidRequest("deviceId must be 1 to 255 bytes.")
                }
                let (sessionId, refreshToken) = try await store.startSession(memberId: request.memberId, deviceId: request.deviceId, provider: request.provider)
                return try await tokens.pair(memberId: request.memberId, sessionId: sessionId, refreshToken: refreshToken)
            },
            Responder(connection: nats, endpoint: Endpoints.refreshTokens, queue: QueueGroups.tokenIssuer, logger: logger) { request in
                guard let token = RefreshToken(request.refreshToken) else {
                    throw ServiceFailure(.invalidRefreshToken, "The refresh token is not valid.")
                }
                switch try await store.rotate(token, deviceId: request.deviceId, secret: secret) {
                case .rotated(let sessionId, let memberId, let successor):
                    return try await tokens.pair(memberId: memberId, sessionId: sessionId, refreshToken: successor)
                case .reused:
                    logger.notice("refresh token reused; session ended")
                    throw ServiceFailure(.refreshTokenReused, "The refresh token was already used; sign in again.")
                case .invalid:
                    throw ServiceFailure(.invalidRefreshToken, "The refresh token is not valid or has expired; sign in again.")
                }
            },
            Responder(connection: nats, endpoint: Endpoints.accessTokenKeys, queue: QueueGroups.tokenIssuer, logger: logger) { _ in
                AccessTokenKeys(jwks: await keys.published(), issuer: configuration.issuer, audience: configuration.audience)
            },
            ClosureService {
                // Other replicas may rotate keys: reload them regularly.
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(30))
                    do { try await keys.load() } catch { logger.warning("signing keys reload failed", ["error": String(describing: error)]) }
                }
            },
        ]
        logger.info("token-issuer ready")
        let discovery = ServiceDiscovery(connection: nats, name: QueueGroups.tokenIssuer,
                                         description: "Access and refresh tokens, sessions, signing keys", services: services, logger: logger)
        try await ServiceGroup(services: services + [discovery], logger: logger).run()
        await nats.drainAndClose()
    }
}

/// Signs access tokens and pairs them with refresh tokens.
struct AccessTokens: Sendable {
    let keys: SigningKeys
    let configuration: TokenIssuerConfiguration

    func pair(memberId: Int64, sessionId: String, refreshToken: RefreshToken) async throws -> TokenPair {
        let key = try await keys.active()
        let now = Int64(Date().timeIntervalSince1970)
        let ttl = configuration.accessTokenTTL.components.seconds
        let claims = AccessTokenClaims(iss: configuration.issuer, aud: configuration.audience, sub: String(memberId),
                                       sid: sessionId, iat: now, exp: now + ttl,
                                       jti: Base64URL.encode(SecureRandom.bytes(16)))
        return TokenPair(accessToken: try key.signer.sign(claims), refreshToken: refreshToken.value,
                         expiresIn: Int(ttl), memberId: memberId, sessionId: sessionId)
    }
}
