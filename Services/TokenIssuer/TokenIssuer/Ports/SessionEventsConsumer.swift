import Contracts
import JSON
import Logging
import Messaging
import Metrics
import NATS
import Runtime

/// Ends sessions when the member-service reports a deleted member or an ended identity. The
/// gateway already asked for that before it answered (`auth.issuer.member-deleted`,
/// `auth.issuer.identity-ended`); the events make sure of it when that call was lost. Reads the
/// events stream through durable consumers shared by every replica, so events published while the
/// issuer was down are handled when it is back. Ending an ended session changes nothing, so a
/// redelivered event is harmless.
enum SessionEventsConsumer {
    /// The durable consumer of `member.deleted`.
    static let memberDeletedDurable = Events.Durables.sessionsOfDeletedMembers
    /// The durable consumer of `identity.unlinked` (JetStream filters one subject per consumer).
    static let identityUnlinkedDurable = Events.Durables.sessionsOfUnlinkedIdentities

    /// The two consumers; the session events their changes write go out through `outbox`.
    static func make(connection: NATSConnection, store: any SessionRepository, outbox: Wakeup, metrics: MetricsRegistry?,
                     logger: Logger) -> [any Service] {
        [
            EventConsumer(connection: connection, type: Events.memberDeleted, durable: memberDeletedDurable, metrics: metrics,
                          logger: logger) { event, _ in
                ended(try await store.endDeletedMember(event.data.memberId), event, outbox: outbox, logger: logger)
            },
            EventConsumer(connection: connection, type: Events.identityUnlinked, durable: identityUnlinkedDurable, metrics: metrics,
                          logger: logger) { event, _ in
                // Whoever ended the identity (the member, or the provider: Apple's consent-revoked,
                // account-delete), the sessions signed in with it end.
                ended(try await store.endSessions(memberId: event.data.memberId, provider: event.data.provider, reason: .identityEnded),
                      event, outbox: outbox, logger: logger)
            },
        ]
    }

    /// Wakes the outbox when sessions ended (their `session.ended` events wait there) and acknowledges.
    private static func ended<Payload>(_ sessions: [String], _ event: EventEnvelope<Payload>, outbox: Wakeup,
                                       logger: Logger) -> EventConsumer<Payload>.Outcome {
        if !sessions.isEmpty {
            outbox.signal()
            logger.info("sessions ended by event", ["event.type": event.type, "event.id": event.id, "sessions.count": String(sessions.count)])
        }
        return .ack
    }
}
