import Contracts
import Logging
import NATS
import Runtime

/// Makes the webhook-relay's consumers (`webhook-01` to `webhook-32`) and its key-value bucket when they are missing, at
/// start and every minute after (the stream may have been made anew): the relay's own NATS identity may only read
/// them, so that no one holding it can make JetStream deliver events elsewhere. The member-service runs it; a consumer
/// that exists is left as it is.
public struct WebhookSlotProvisioning: Service {
    let connection: NATSConnection
    let replicas: Int
    let logger: Logger

    /// Provisioning on `connection`, the bucket kept in `replicas` copies (`EVENTS_REPLICAS`).
    public init(connection: NATSConnection, replicas: Int, logger: Logger) {
        self.connection = connection
        self.replicas = replicas
        self.logger = logger
    }

    public var name: String { "webhook-slots" }

    public func run() async throws {
        var warned = false
        while !Task.isCancelled {
            do {
                try await provision()
                warned = false
            } catch {
                if !warned { logger.warning("the webhook-relay's consumers could not be made; trying again", ["error": String(describing: error)]) }
                warned = true
            }
            try await Task.sleep(for: .seconds(60))
        }
    }

    /// Makes what is missing.
    func provision() async throws {
        try await connection.jetStream.ensureKeyValue(Events.webhookBucket, replicas: replicas)
        for slot in Events.Durables.webhookSlots
        where try await connection.jetStream.consumerState(stream: Events.stream, durable: slot) == nil {
            try await connection.jetStream.ensureConsumer(stream: Events.stream, durable: slot,
                                                          filterSubject: Events.WebhookSlotSettings.filterSubject,
                                                          ackWait: Events.WebhookSlotSettings.ackWait, startsAtNew: true,
                                                          description: "the webhook-relay's (claims in the \(Events.webhookBucket) bucket)")
        }
    }
}
