import Management
import Messaging
import Persistence
import Runtime

extension TokenIssuerConfiguration {
    /// Reads the issuer's variables (docs/configuration.md); throws naming the variable at fault.
    public init(environment: EnvironmentReader) throws(ConfigurationError) {
        self.init()
        natsURL = try environment.urlList("NATS_URL", default: natsURL, schemes: ["nats", "tls"])
        natsAccess = try environment.natsAccess(for: .tokenIssuer)
        databaseURL = try environment.databaseURL(default: databaseURL)
        databasePoolSize = try environment.int("DATABASE_POOL_SIZE", default: databasePoolSize, in: 1...256)
        issuer = environment.string("TOKEN_ISSUER", default: issuer)
        audience = environment.string("TOKEN_AUDIENCE", default: audience)
        clockSkew = try environment.seconds("CLOCK_SKEW", default: clockSkew, in: 0...600)
        accessTokenTTL = try environment.seconds("ACCESS_TOKEN_TTL", default: accessTokenTTL, in: 10...86_400)
        refreshTokenTTL = try environment.seconds("REFRESH_TOKEN_TTL", default: refreshTokenTTL, in: 60...31_536_000)
        refreshReuseGrace = try environment.seconds("REFRESH_REUSE_GRACE", default: refreshReuseGrace, in: 0...300)
        signingKeyRotation = try environment.seconds("SIGNING_KEY_ROTATION", default: signingKeyRotation, in: 0...31_536_000)
        signingKeyPublishLead = try environment.seconds("SIGNING_KEY_PUBLISH_LEAD", default: signingKeyPublishLead, in: 1...86_400)
        if signingKeyRotation > .zero, signingKeyRotation <= signingKeyPublishLead {
            throw ConfigurationError(variable: "SIGNING_KEY_ROTATION", problem: "must be longer than SIGNING_KEY_PUBLISH_LEAD")
        }
        outboxPollInterval = try environment.seconds("OUTBOX_POLL_INTERVAL", default: outboxPollInterval, in: 1...60)
        management = try environment.management(defaultPort: nil)
        events = try environment.eventStream()
        if let paths = environment.list("REFRESH_TOKEN_KEY_FILE") {
            // Read now, so a missing or short key stops the start before anything connects.
            _ = try RefreshTokenKeys.readKeyFiles(paths)
            refreshTokenKeyFiles = paths
        }
        if let paths = environment.list("SIGNING_KEY_FILE") {
            if environment.optional("SIGNING_KEY_ROTATION") != nil {
                throw ConfigurationError(variable: "SIGNING_KEY_ROTATION",
                                         problem: "does not apply with SIGNING_KEY_FILE: keys from files rotate when a new key file is added")
            }
            // Every file must hold a usable key now, before anything connects; they are read again at each reload.
            _ = try SigningKeys.readKeyFiles(paths)
            signingKeyFiles = paths
        }
    }
}
