import Contracts
import JSON
import Logging
import Messaging
import Metrics
import NATS
import Runtime

/// Ends sessions when the member-service reports a deleted member, an ended identity or a suspension, and
/// lifts a suspension when it reports that. The member-service already asked for that before it answered
/// (`auth.issuer.member-deleted`, `auth.issuer.identity-ended`, `auth.issuer.member-suspension`); the events
/// make sure of it when that call was lost. Reads the events stream through durable consumers shared by every
/// replica, so events published while the issuer was down are handled when it is back. Ending an ended session
/// changes nothing, and a suspension change is applied only when its generation is newer than the one held, so
/// a redelivered or late event is harmless.
enum SessionEventsConsumer {
    /// The durable consumer of `member.deleted`.
    static let memberDeletedDurable = Events.Durables.sessionsOfDeletedMembers
    /// The durable consumer of `identity.unlinked` (JetStream filters one subject per consumer).
    static let identityUnlinkedDurable = Events.Durables.sessionsOfUnlinkedIdentities
    /// The durable consumer of `member.suspended`.
    static let memberSuspendedDurable = Events.Durables.sessionsOfSuspendedMembers
    /// The durable consumer of `member.unsuspended`.
    static let memberUnsuspendedDurable = Events.Durables.sessionsOfUnsuspendedMembers

    /// The four consumers; the session events their changes write go out through `outbox`. A suspension change is
    /// applied as the member-service's call applies it (`handlers`).
    static func make(connection: NATSConnection, store: any SessionRepository, handlers: IssuerHandlers, outbox: Wakeup,
                     metrics: MetricsRegistry?, logger: Logger) -> [any Service] {
        [
            EventConsumer(connection: connection, type: Events.memberDeleted, durable: memberDeletedDurable, metrics: metrics,
                          logger: logger) { event, _ in
                ended(try await store.endDeletedMember(event.data.memberId), event, outbox: outbox, logger: logger)
            },
            EventConsumer(connection: connection, type: Events.identityUnlinked, durable: identityUnlinkedDurable, metrics: metrics,
                          logger: logger) { event, _ in
                // Whoever ended the identity (the member, or the provider: Apple's consent-revoked,
                // account-delete), the sessions signed in with it end: those started by a minute after the event's
                // time (whole seconds, on the member-service's clock, not the database's), so that a copy of an old
                // event (any identity that reads a durable can have one stored again) ends no session of the
                // identity linked again since.
                ended(try await store.endSessions(memberId: event.data.memberId, provider: event.data.provider, reason: .identityEnded,
                                                  startedBefore: event.occurredAt.addingTimeInterval(60)),
                      event, outbox: outbox, logger: logger)
            },
            EventConsumer(connection: connection, type: Events.memberSuspended, durable: memberSuspendedDurable, metrics: metrics,
                          logger: logger) { event, _ in
                _ = try await handlers.applySuspension(memberId: event.data.memberId, suspended: true,
                                                       generation: event.data.generation, source: "event")
                return .ack
            },
            EventConsumer(connection: connection, type: Events.memberUnsuspended, durable: memberUnsuspendedDurable, metrics: metrics,
                          logger: logger) { event, _ in
                _ = try await handlers.applySuspension(memberId: event.data.memberId, suspended: false,
                                                       generation: event.data.generation, source: "event")
                return .ack
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
