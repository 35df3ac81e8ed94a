import Contracts
import Foundation
import Logging
import NATS
import Runtime

/// Makes the webhook-relay's key-value bucket, and the consumer of each slot an endpoint claimed there (``WebhookSlot``),
/// starting with the events stored from the claim on: the relay's own NATS identity may only read its consumers, so
/// that no one holding it can make JetStream deliver events elsewhere. A slot no endpoint claimed has no consumer (an
/// idle consumer is one more a NATS cluster must keep current). It looks every few seconds; the member-service runs it.
/// A consumer that exists is left as it is.
public struct WebhookSlotProvisioning: Service {
    let connection: NATSConnection
    let replicas: Int
    let interval: Duration
    let logger: Logger

    /// Provisioning on `connection`, the bucket kept in `replicas` copies (`EVENTS_REPLICAS`), looked at every `interval`.
    public init(connection: NATSConnection, replicas: Int, interval: Duration = .seconds(2), logger: Logger) {
        self.connection = connection
        self.replicas = replicas
        self.interval = interval
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
            try await Task.sleep(for: interval)
        }
    }

    /// Makes the bucket if missing, and the consumers of claimed slots that have none.
    func provision() async throws {
        let jetStream = connection.jetStream
        try await jetStream.ensureKeyValue(Events.webhookBucket, replicas: replicas)
        let bucket = try await jetStream.keyValue(Events.webhookBucket)
        for slot in Events.Durables.webhookSlots {
            guard let entry = try await bucket.get("slot.\(slot)"),
                  case .claimed(let endpoint, let since, _) = WebhookSlot(description: String(decoding: entry.value, as: UTF8.self)),
                  try await jetStream.consumerState(stream: Events.stream, durable: slot) == nil else { continue }
            try await jetStream.ensureConsumer(stream: Events.stream, durable: slot, filterSubject: Events.WebhookSlotSettings.filterSubject,
                                               ackWait: Events.WebhookSlotSettings.ackWait,
                                               startTime: Date(timeIntervalSince1970: TimeInterval(since)),
                                               description: "the webhook-relay's, for its endpoint '\(endpoint)'")
            logger.info("webhook-relay consumer made", ["nats.durable": slot, "webhook.endpoint": endpoint])
        }
    }
}
