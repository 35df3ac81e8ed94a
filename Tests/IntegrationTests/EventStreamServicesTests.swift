import Contracts
import Foundation
import Logging
import Messaging
import NATS
import Runtime
import Synchronization
import Testing
import TestSupport

/// The stream set-up in front of a process's outbox and consumers (`Shared/Messaging/EventStreamServices.swift`)
/// on a private JetStream: they start once the stream exists, and a stream lost while they run is made again.
@Suite("EventStreamServices: the events stream before the outbox and consumers, and made again when lost")
struct EventStreamServicesTests {
    static let logger = Logger(label: "event-stream-services-tests", level: .critical)

    @Test("the services start once the stream exists; when the stream is deleted, publishes find it again after a look-up")
    func remadeWhenLost() async throws {
        let nats = try await TestNATSServer.start(jetStream: true)
        defer { nats.stop() }
        let connection = try await NATSConnection.connect(TestIdentities.configuration(url: nats.url, name: "stream-services-tests"),
                                                          logger: Self.logger)
        let publisher = EventPublisher(connection: connection, logger: Self.logger)
        let event = MemberCreated(memberId: 1, provider: .google)
        // The inner service's first act is a publish, which needs the stream: it exists by then.
        let started = Atomic<Int>(0)
        let inner = ClosureService {
            started.store((try? await publisher.publish(Events.memberCreated, event)) == nil ? 1 : 2, ordering: .sequentiallyConsistent)
            await Task.sleepUntilCancelled()
        }
        let services = EventStreamServices(connection: connection, settings: EventStreamSettings(), services: [inner],
                                           recheckInterval: .seconds(2), logger: Self.logger)
        let running = Task { try await services.run() }

        #expect(await eventually(timeout: .seconds(10)) { started.load(ordering: .sequentiallyConsistent) != 0 })
        #expect(started.load(ordering: .sequentiallyConsistent) == 2, "started before the stream existed")

        // JetStream's storage lost: the stream is gone, and a publish fails until the next look-up (2 s)
        // makes it again.
        try await connection.jetStream.deleteStream(name: Events.stream)
        await #expect(throws: (any Error).self) { try await publisher.publish(Events.memberCreated, event) }
        #expect(await eventually(timeout: .seconds(10)) { (try? await publisher.publish(Events.memberCreated, event)) != nil },
                "the stream was not made again")

        running.cancel()
        _ = await running.result
        await connection.drainAndClose()
    }
}
