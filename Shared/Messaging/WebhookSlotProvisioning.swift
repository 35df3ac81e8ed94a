import Contracts
import Foundation
import Logging
import NATS
import Runtime

/// Makes the webhook-relay's key-value bucket and its 32 consumers (``Events/Durables/webhookSlots``), each a pull
/// consumer of every event, acknowledged one by one: the relay's own NATS identity may only read them, so that no one
/// holding it can make JetStream deliver events elsewhere. All exist from the member-service's first start on, so no
/// identity, the member-service's included, can make one of those names a push consumer later (nats-server checks no
/// permission on where a consumer delivers; it refuses to turn an existing pull consumer into one). Each is kept in one
/// copy (`replicas` 1): nats-server 2.9 reports an idle replicated consumer (a slot no endpoint claimed) not current
/// after a node restart, and a node's health with it; a slot's events wait while its node is down, and the stream
/// keeps them. It looks again every 10 seconds, making what is missing and setting back a consumer changed since.
public struct WebhookSlotProvisioning: Service {
    let connection: NATSConnection
    let replicas: Int
    let interval: Duration
    let logger: Logger

    /// Provisioning on `connection`, the bucket kept in `replicas` copies (`EVENTS_REPLICAS`), looked at every `interval`.
    public init(connection: NATSConnection, replicas: Int, interval: Duration = .seconds(10), logger: Logger) {
        self.connection = connection
        self.replicas = replicas
        self.interval = interval
        self.logger = logger
    }

    public var name: String { "webhook-slots" }

    public func run() async throws {
        var warned = false
        var told: Set<String> = []
        while !Task.isCancelled {
            do {
                try await provision(told: &told)
                warned = false
            } catch {
                if !warned { logger.warning("the webhook-relay's consumers could not be made; trying again", ["error": String(describing: error)]) }
                warned = true
            }
            try await Task.sleep(for: warned ? .seconds(2) : interval)
        }
    }

    /// Makes the bucket and the consumers that are missing; tells (once each, in `told`) a consumer made otherwise.
    func provision(told: inout Set<String>) async throws {
        let jetStream = connection.jetStream
        let allowsDirectGets = try await jetStream.ensureKeyValue(Events.webhookBucket, replicas: replicas,
                                                                  maxValueSize: WebhookSlot.maxValueSize, maxBytes: 64 * 1024)
        if allowsDirectGets, told.insert("KV_\(Events.webhookBucket)").inserted {
            logger.warning("the webhook-relay's bucket allows direct gets (made by an earlier release): the relay delivers nothing until the stream-admin turns them off with `nats stream edit KV_\(Events.webhookBucket) --no-allow-direct` (docs/production.md, Upgrades)")
        }
        for slot in Events.Durables.webhookSlots {
            guard let state = try await jetStream.consumerState(stream: Events.stream, durable: slot) else {
                try await make(slot, startTime: Date())
                logger.info("webhook-relay consumer made", ["nats.durable": slot])
                continue
            }
            let flaws = Self.flaws(of: state.configuration)
            guard !flaws.isEmpty else {
                told.remove(slot)
                continue
            }
            // Changed by someone holding an identity that may set it (this service's): what nats-server lets change is
            // set back; the rest (a push consumer) stays unread by the relay until an operator deletes it.
            do {
                try await make(slot, startTime: state.configuration.startTime)
                logger.error("a webhook-relay consumer had been changed; set back as the member-service makes it",
                             ["nats.durable": slot, "flaws": flaws.joined(separator: "; ")])
            } catch {
                if told.insert(slot).inserted {
                    logger.error("a webhook-relay consumer is not as the member-service makes it, and cannot be set back: the relay does not read it until an operator deletes it (nats consumer rm), and it is made again",
                                 ["nats.durable": slot, "flaws": flaws.joined(separator: "; "), "error": String(describing: error)])
                }
            }
        }
    }

    /// Makes `slot`'s consumer, or sets an existing one back to how it is made (keeping where it started, `startTime`).
    private func make(_ slot: String, startTime: Date?) async throws {
        try await connection.jetStream.ensureConsumer(stream: Events.stream, durable: slot, filterSubject: Events.WebhookSlotSettings.filterSubject,
                                                      ackWait: Events.WebhookSlotSettings.ackWait, startTime: startTime,
                                                      description: "the webhook-relay's", replicas: 1)
    }

    /// What is wrong with a slot's consumer: it must be a pull consumer of every event, acknowledged one by one with
    /// the relay's ack wait, that gives no event up and delivers bodies at once. One changed otherwise (the
    /// member-service's identity may set these consumers) could skip events, lose their bodies or hold them back; the
    /// relay reads none of it. Empty when it is as made.
    public static func flaws(of configuration: JetStream.ConsumerConfiguration) -> [String] {
        var flaws: [String] = []
        if let subject = configuration.deliverSubject { flaws.append("it is a push consumer, delivering to '\(subject.prefix(64))'") }
        if configuration.filterSubject != Events.WebhookSlotSettings.filterSubject {
            flaws.append("it delivers '\(configuration.filterSubject.prefix(64))', not '\(Events.WebhookSlotSettings.filterSubject)'")
        }
        if !configuration.acknowledgesEach { flaws.append("its events are not acknowledged one by one") }
        if configuration.ackWait != Events.WebhookSlotSettings.ackWait { flaws.append("its ack wait is \(configuration.ackWait)") }
        if configuration.maxDeliver > 0 { flaws.append("it gives an event up after \(configuration.maxDeliver) deliveries") }
        if configuration.startsElsewhere { flaws.append("it starts neither at the first stored event nor at a time") }
        if configuration.headersOnly { flaws.append("it delivers headers without the events") }
        if !configuration.replaysInstantly { flaws.append("it replays at the pace events were stored") }
        if configuration.hasBackOff { flaws.append("its redeliveries wait by a back-off list") }
        if configuration.inactiveThreshold > .zero { flaws.append("the server deletes it when unread") }
        if configuration.memoryStorage { flaws.append("its place is kept in memory only") }
        if (1..<256).contains(configuration.maxAckPending) { flaws.append("it lets \(configuration.maxAckPending) events await acknowledgement") }
        if (1..<64).contains(configuration.maxRequestBatch) { flaws.append("it takes fetches of \(configuration.maxRequestBatch) events at most") }
        if configuration.maxRequestExpires > .zero, configuration.maxRequestExpires < .seconds(1) {
            flaws.append("its fetches may wait \(configuration.maxRequestExpires) at most")
        }
        if configuration.maxRequestMaxBytes > 0, configuration.maxRequestMaxBytes < 1_048_576 {
            flaws.append("its fetches may take \(configuration.maxRequestMaxBytes) bytes at most")
        }
        return flaws
    }
}
