import Contracts
import JSON
import Logging
import Messaging
import NATS
import Runtime

/// Revokes the provider grants of deleted members: a durable JetStream consumer of
/// `events.member.deleted` shared by every replica. A message is acknowledged once all its
/// grants are done; when a provider is down it is declined with a growing delay (2 s, 4 s, ...
/// up to a minute) and so retried until the provider answers.
struct RevocationConsumer: Service {
    /// The durable consumer's name, shared by the replicas.
    static let durableName = Events.Durables.revocations

    let connection: NATSConnection
    let revoker: GrantRevoker
    let streamSettings: EventStreamSettings
    let logger: Logger
    var maxConcurrent = 16

    func run() async throws {
        let logger = self.logger.with(["nats.durable": Self.durableName])
        // A JetStream outage at start or later is waited out, never fatal.
        var warned = false
        while !Task.isCancelled {
            do {
                try await EventPublisher(connection: connection, logger: logger).ensureStream(streamSettings)
                let consumer = try connection.jetStream.consume(stream: Events.stream, durable: Self.durableName,
                                                                filterSubject: Events.memberDeleted.subject,
                                                                ackWait: .seconds(60))
                logger.info("consuming member deletions")
                warned = false
                try await withTaskCancellationHandler {
                    try await consume(consumer)
                } onCancel: {
                    consumer.stop()
                }
            } catch {
                if Task.isCancelled { break }
                if !warned {
                    logger.warning("member deletion consumer interrupted; retrying", ["error": String(describing: error)])
                    warned = true
                }
                try? await Task.sleep(for: .seconds(2))
            }
        }
    }

    private func consume(_ consumer: JetStreamConsumer) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var inFlight = 0
            for try await message in consumer {
                if inFlight >= maxConcurrent {
                    try await group.next()
                    inFlight -= 1
                }
                group.addTask { await handle(message) }
                inFlight += 1
            }
            try await group.waitForAll()
        }
    }

    private func handle(_ message: JetStreamMessage) async {
        let event: EventEnvelope<MemberDeleted>
        do {
            event = try MessageCoding.decode(EventEnvelope<MemberDeleted>.self, from: message.payload)
        } catch {
            logger.error("unreadable member.deleted event dropped", ["nats.sequence": String(message.streamSequence)])
            try? await message.term()
            return
        }
        let logger = self.logger.with(["event.id": event.id, "member.id": String(event.data.memberId)])
        var outcomes: [RevocationOutcome] = []
        for grant in event.data.grants {
            outcomes.append(await revoker.revoke(grant))
        }
        do {
            if outcomes.allSatisfy({ $0 == .done }) {
                try await message.ack()
                if !event.data.grants.isEmpty { logger.info("grants revoked", ["grants": String(event.data.grants.count)]) }
            } else {
                let delay = Self.retryDelay(delivery: message.deliveryCount)
                logger.warning("a provider could not revoke now; retrying later",
                               ["delivery": String(message.deliveryCount), "retry.seconds": String(delay.components.seconds)])
                try await message.nak(delay: delay)
            }
        } catch {
            // Unacknowledged, the message comes again after the ack wait.
            logger.warning("acknowledgement failed", ["error": String(describing: error)])
        }
    }

    /// 2 s after the first delivery, doubling each time, at most one minute.
    static func retryDelay(delivery: Int) -> Duration {
        .seconds(min(2 << min(max(delivery - 1, 0), 5), 60))
    }
}
