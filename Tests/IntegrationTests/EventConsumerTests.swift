import Contracts
import Foundation
import Logging
import Messaging
import Metrics
import NATS
import Synchronization
import Testing
import TestSupport

/// The shared durable-consumer loop (`Shared/Messaging/EventConsumer.swift`) on a private JetStream:
/// what each outcome does, unreadable events, slow handlers.
@Suite("EventConsumer: ack, retry after a delay, unreadable events, slow handlers")
struct EventConsumerTests {
    static let logger = Logger(label: "event-consumer-tests", level: .critical)
    static let type = EventType<MemberCreated>("consumer-test.created")

    /// Deliveries seen by a handler: (member, delivery count, when).
    final class Deliveries: Sendable {
        private let seen = Mutex<[(member: Int64, delivery: Int, at: ContinuousClock.Instant)]>([])
        func record(_ member: Int64, _ delivery: Int) { seen.withLock { $0.append((member, delivery, .now)) } }
        var all: [(member: Int64, delivery: Int, at: ContinuousClock.Instant)] { seen.withLock { $0 } }
    }

    /// Runs `consumer` while `body` runs, on a private nats-server with the events stream.
    static func withConsumer(ackWait: Duration = .seconds(30), maxHandlingTime: Duration? = nil, maxConcurrent: Int = 1,
                             _ handler: @escaping EventConsumer<MemberCreated>.Handler,
                             _ body: (NATSConnection, MetricsRegistry) async throws -> Void) async throws {
        let nats = try await TestNATSServer.start(jetStream: true)
        defer { nats.stop() }
        let connection = try await NATSConnection.connect(TestIdentities.configuration(url: nats.url, name: "consumer-tests"), logger: logger)
        try await EventPublisher(connection: connection, logger: logger).ensureStream()
        let metrics = MetricsRegistry()
        let consumer = EventConsumer(connection: connection, type: type, durable: "consumer-test", ackWait: ackWait,
                                     maxHandlingTime: maxHandlingTime, maxConcurrent: maxConcurrent, metrics: metrics,
                                     logger: logger, handler: handler)
        let running = Task { try await consumer.run() }
        do {
            try await body(connection, metrics)
        } catch {
            running.cancel()
            throw error
        }
        running.cancel()
        _ = await running.result
        await connection.drainAndClose()
    }

    @Test("retry(after:) delivers the event again after the delay; ack ends it; both are counted")
    func retryThenAck() async throws {
        let deliveries = Deliveries()
        try await Self.withConsumer({ event, delivery in
            deliveries.record(event.data.memberId, delivery)
            return delivery == 1 ? .retry(after: .seconds(2)) : .ack
        }) { connection, metrics in
            try await EventPublisher(connection: connection, logger: Self.logger).publish(Self.type, MemberCreated(memberId: 1, provider: .google))
            #expect(await eventually(timeout: .seconds(10)) { deliveries.all.count == 2 })
            try await Task.sleep(for: .seconds(3))  // a fixed window is the check: no delivery after the ack
            let seen = deliveries.all
            #expect(seen.map(\.delivery) == [1, 2], "delivered again after the ack")
            if seen.count == 2 {
                let gap = seen[1].at - seen[0].at
                #expect(gap >= .milliseconds(1900) && gap < .seconds(6), "redelivered after \(gap)")
            }
            #expect(metrics.counterValue("events_retried_total", ["durable": "consumer-test"]) == 1)
            #expect(metrics.counterValue("events_handled_total", ["durable": "consumer-test"]) == 1)
        }
    }

    @Test("an event that does not decode is dropped with an error, counted, and never handed to the handler")
    func unreadableDropped() async throws {
        let deliveries = Deliveries()
        try await Self.withConsumer({ event, delivery in
            deliveries.record(event.data.memberId, delivery)
            return .ack
        }) { connection, metrics in
            _ = try await connection.jetStream.publish(Self.type.subject, Array("not json".utf8))
            try await EventPublisher(connection: connection, logger: Self.logger).publish(Self.type, MemberCreated(memberId: 2, provider: .google))
            #expect(await eventually(timeout: .seconds(10)) { deliveries.all.count == 1 })
            #expect(await eventually { metrics.counterValue("events_failed_total", ["durable": "consumer-test"]) == 1 })
            try await Task.sleep(for: .seconds(2))  // a fixed window is the check: the unreadable event does not come again
            #expect(deliveries.all.map(\.member) == [2])
            #expect(metrics.counterValue("events_failed_total", ["durable": "consumer-test"]) == 1, "the unreadable event came again")
        }
    }

    @Test("a handler that works longer than the ack wait keeps its event: it is not delivered a second time meanwhile")
    func slowHandlerKeepsEvent() async throws {
        let deliveries = Deliveries()
        try await Self.withConsumer(ackWait: .seconds(2), { event, delivery in
            deliveries.record(event.data.memberId, delivery)
            try await Task.sleep(for: .seconds(5))  // works longer than the ack wait
            return .ack
        }) { connection, metrics in
            try await EventPublisher(connection: connection, logger: Self.logger).publish(Self.type, MemberCreated(memberId: 3, provider: .google))
            #expect(await eventually(timeout: .seconds(15)) { metrics.counterValue("events_handled_total", ["durable": "consumer-test"]) == 1 })
            try await Task.sleep(for: .seconds(3))  // a fixed window is the check: no second delivery
            #expect(deliveries.all.map(\.delivery) == [1], "delivered again while the handler worked")
        }
    }

    @Test("a handler that hangs keeps its event only for maxHandlingTime: then it is delivered again")
    func hungHandlerLetsGo() async throws {
        let deliveries = Deliveries()
        try await Self.withConsumer(ackWait: .seconds(3), maxHandlingTime: .seconds(6), maxConcurrent: 2, { event, delivery in
            deliveries.record(event.data.memberId, delivery)
            if delivery == 1 { try await Task.sleep(for: .seconds(60)) }  // hangs
            return .ack
        }) { connection, metrics in
            try await EventPublisher(connection: connection, logger: Self.logger).publish(Self.type, MemberCreated(memberId: 4, provider: .google))
            // Beats for 6 s (the last at most 6 s in), then the 3 s ack wait runs out: delivered again while the
            // first handler still hangs, some 8 s in (a second of slack for a late first beat on a busy machine).
            #expect(await eventually(timeout: .seconds(30)) { metrics.counterValue("events_handled_total", ["durable": "consumer-test"]) == 1 })
            let seen = deliveries.all
            #expect(seen.map(\.delivery) == [1, 2])
            if seen.count == 2 {
                #expect(seen[1].at - seen[0].at >= .seconds(6), "delivered again before maxHandlingTime: \(seen[1].at - seen[0].at)")
            }
        }
    }
}
