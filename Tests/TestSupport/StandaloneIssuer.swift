import Logging
import TokenIssuer

extension TestStack {
    /// Starts a token-issuer of its own: on `natsURL` (not the shared stack's NATS, or it would answer the
    /// shared stack's requests), with `databaseURL` or a fresh database, the stack's issuer and audience,
    /// and `configure`'s settings. Waits until it serves; returns it with its database's URL.
    public static func startIssuer(natsURL: String, databaseURL: String? = nil,
                                   configure: (inout TokenIssuerConfiguration) -> Void) async throws
        -> (issuer: ServiceHandle, databaseURL: String) {
        var configuration = TokenIssuerConfiguration()
        configuration.natsURL = natsURL
        configuration.natsAccess = TestIdentities.access(for: .tokenIssuer)
        let adminURL: String
        if let databaseURL {
            adminURL = databaseURL
        } else {
            adminURL = try await freshDatabase()
        }
        configuration.databaseURL = serviceURL(adminURL, .tokenIssuer)
        configuration.issuer = tokenIssuer
        configuration.audience = tokenAudience
        configure(&configuration)
        let logger = Logger(label: "standalone-issuer", level: .warning, format: .text)
        let issuer = ServiceHandle(logger: logger) { [configuration] ready in
            TokenIssuerServer(configuration: configuration, logger: logger, onReady: ready)
        }
        await issuer.start()
        return (issuer, adminURL)
    }
}
