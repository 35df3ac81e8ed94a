import Contracts
import JSON
import Logging
import Messaging
import NATS
import Runtime

/// Ends sessions when the member-service reports a deleted member or an ended identity. The
/// gateway already asked for that before it answered (`auth.issuer.member-deleted`,
/// `auth.issuer.identity-ended`); the events make sure of it when that call was lost. Reads the
/// events stream through durable consumers shared by every replica, so events published while the
/// issuer was down are handled when it is back. Ending an ended session changes nothing, so a
/// redelivered event is harmless.
struct SessionEventsConsumer: Service {
    /// The durable consumer of `member.deleted`.
    static let memberDeletedDurable = Events.Durables.sessionsOfDeletedMembers
    /// The durable consumer of `identity.unlinked` (JetStream filters one subject per consumer).
    static let identityUnlinkedDurable = Events.Durables.sessionsOfUnlinkedIdentities

    let connection: NATSConnection
    let store: SessionStore
    let relay: OutboxRelay
    let logger: Logger

    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await consume(Events.memberDeleted, durable: Self.memberDeletedDurable) { event in
                    try await store.endDeletedMember(event.memberId)
                }
            }
            group.addTask {
                try await consume(Events.identityUnlinked, durable: Self.identityUnlinkedDurable) { event in
                    // Whoever ended the identity (the member, or the provider: Apple's consent-revoked,
                    // account-delete), the sessions signed in with it end.
                    try await store.endSessions(memberId: event.memberId, provider: event.provider, reason: .identityEnded)
                }
            }
            try await group.waitForAll()
        }
    }

    /// Consumes one event type until cancelled, binding the consumer again after a failure.
    private func consume<Payload>(_ type: EventType<Payload>, durable: String,
                                  _ handle: @escaping @Sendable (Payload) async throws -> [String]) async throws {
        let logger = logger.with(["nats.consumer": durable])
        while !Task.isCancelled {
            do {
                let consumer = try connection.jetStream.consume(stream: Events.stream, durable: durable, filterSubject: type.subject)
                try await withTaskCancellationHandler {
                    for try await message in consumer {
                        await process(message, type, logger: logger, handle)
                    }
                } onCancel: {
                    consumer.stop()
                }
            } catch {
                logger.warning("event consumer failed; binding again", ["error": String(describing: error)])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func process<Payload>(_ message: JetStreamMessage, _ type: EventType<Payload>, logger: Logger,
                                  _ handle: @Sendable (Payload) async throws -> [String]) async {
        let envelope: EventEnvelope<Payload>
        do {
            envelope = try MessageCoding.decode(EventEnvelope<Payload>.self, from: message.payload)
        } catch {
            logger.error("unreadable event dropped", ["nats.subject": message.subject, "nats.sequence": String(message.streamSequence)])
            try? await message.term()
            return
        }
        do {
            let ended = try await handle(envelope.data)
            if !ended.isEmpty {
                relay.poke()
                logger.info("sessions ended by event", ["event.type": envelope.type, "event.id": envelope.id,
                                                        "sessions.count": String(ended.count)])
            }
            try await message.ack()
        } catch {
            logger.warning("event not handled yet; redelivering", ["event.id": envelope.id, "error": String(describing: error)])
            try? await message.nak(delay: .seconds(1))
        }
    }
}
