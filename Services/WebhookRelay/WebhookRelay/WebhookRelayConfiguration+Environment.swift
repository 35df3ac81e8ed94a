import Foundation
import Management
import Messaging
import Runtime

extension WebhookRelayConfiguration {
    /// Reads the webhook-relay's variables (docs/configuration.md); throws naming the variable at fault. A
    /// webhooks file that cannot be read or has a bad endpoint stops it here, naming the endpoint, never a secret.
    public init(environment: EnvironmentReader) throws(ConfigurationError) {
        self.init()
        timeout = try environment.seconds("WEBHOOK_TIMEOUT", default: timeout, in: 1...120)
        concurrency = try environment.int("WEBHOOK_CONCURRENCY", default: concurrency, in: 1...64)
        allowHTTP = try environment.bool("WEBHOOK_ALLOW_HTTP", default: allowHTTP)
        allowPrivateAddresses = try environment.bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default: allowPrivateAddresses)
        natsURL = try environment.urlList("NATS_URL", default: natsURL, schemes: ["nats", "tls"])
        natsAccess = try environment.natsAccess(for: .webhookRelay)
        management = try environment.management(defaultPort: nil)
        events = try environment.eventStream()
        guard let path = environment.optional("WEBHOOKS_FILE") else {
            throw ConfigurationError(variable: "WEBHOOKS_FILE", problem: "is not set (a JSON array of endpoints; [] for none)")
        }
        do {
            _ = try Self.followedFile(path, allowHTTP: allowHTTP)
        } catch {
            throw ConfigurationError(variable: "WEBHOOKS_FILE", problem: "\(error)")
        }
        webhooksFile = path
    }

    /// The webhooks file, followed: a version that cannot be used later leaves the endpoints read before in force.
    static func followedFile(_ path: String, allowHTTP: Bool) throws -> FollowedFile<[WebhookEndpoint]> {
        try FollowedFile(path: path, onFailure: .keepLast) { text in
            try WebhookEndpoint.list(parsing: text, allowHTTP: allowHTTP)
        }
    }
}
