import Contracts
import Logging
import Messaging
import Metrics
import NATS

/// The audit trail's feed: every event of the stream through the admin-api's durable consumer
/// (`admin-api-audit`), in batches of up to 256, each stored in one statement (``AuditRepository/store(_:)``,
/// idempotent by event ID), then acknowledged. A login costs the trail nothing on its way: the events leave
/// the services' outboxes as before, and the trail catches up behind them.
enum AuditEventsConsumer {
    static func make(connection: NATSConnection, repository: any AuditRepository, metrics: MetricsRegistry,
                     logger: Logger) -> EventBatchConsumer {
        EventBatchConsumer(connection: connection, durable: Events.Durables.audit, filterSubject: "events.>", batchSize: 256,
                           metrics: metrics, logger: logger) { events in
            try await repository.store(batch(events, logger: logger))
        }
    }

    /// The records of `events` and the members their deletions erase; an event that cannot be read is logged
    /// and left out (it would never read better).
    static func batch(_ events: [EventBatchConsumer.Event], logger: Logger) -> AuditBatch {
        var records: [AuditRecord] = []
        records.reserveCapacity(events.count)
        var erased: [Int64] = []
        for event in events {
            guard let record = AuditEvents.record(subject: event.subject, payload: event.payload) else {
                logger.error("unreadable event left out of the audit trail", ["nats.subject": event.subject])
                continue
            }
            if let member = AuditEvents.erasedMember(record) { erased.append(member) }
            records.append(record)
        }
        return AuditBatch(records: records, erasedMembers: erased)
    }
}
