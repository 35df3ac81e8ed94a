import Contracts
import JSON
import Logging
import Messaging
import Metrics
import NATS
import Runtime

/// Revokes the provider grants of deleted members: the handler of `member.deleted` on the durable
/// consumer shared by every replica. An event is acknowledged once all its grants are done; when a
/// provider is down it is retried with a growing delay (2 s, 4 s, ... up to 30 s) until the
/// provider answers.
enum RevocationConsumer {
    /// The durable consumer's name, shared by the replicas.
    static let durableName = Events.Durables.revocations

    /// The consumer of `member.deleted` that revokes each event's grants through `revoker`.
    static func make(connection: NATSConnection, revoker: GrantRevoker, metrics: MetricsRegistry?, logger: Logger,
                     maxConcurrent: Int = 16) -> EventConsumer<MemberDeleted> {
        // A short ack wait (the consumer reports progress while a revocation runs long): an event whose
        // acknowledgement was lost comes back within 15 s, not after the minute it used to.
        EventConsumer(connection: connection, type: Events.memberDeleted, durable: durableName, ackWait: .seconds(15),
                      maxConcurrent: maxConcurrent, metrics: metrics, logger: logger) { event, delivery in
            let logger = logger.with(["event.id": event.id, "member.id": String(event.data.memberId)])
            var outcomes: [RevocationOutcome] = []
            for grant in event.data.grants {
                outcomes.append(await revoker.revoke(grant))
            }
            guard outcomes.allSatisfy({ $0 == .done }) else {
                let delay = retryDelay(delivery: delivery)
                logger.warning("a provider could not revoke now; retrying later",
                               ["delivery": String(delivery), "retry.seconds": String(delay.components.seconds)])
                return .retry(after: delay)
            }
            if !event.data.grants.isEmpty { logger.info("grants revoked", ["grants": String(event.data.grants.count)]) }
            return .ack
        }
    }

    /// 2 s after the first delivery, doubling each time, at most 30 s.
    static let redelivery = Backoff(first: .seconds(2), cap: .seconds(30))

    /// The delay before delivery `delivery + 1` of a revocation a provider could not take now.
    static func retryDelay(delivery: Int) -> Duration {
        redelivery.delay(afterFailures: delivery)
    }
}
