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
        let started = Atomic<Bool>(false)
        let inner = ClosureService {
            started.store(true, ordering: .sequentiallyConsistent)
            await Task.sleepUntilCancelled()
        }
        let services = EventStreamServices(connection: connection, settings: EventStreamSettings(), services: [inner],
                                           recheckInterval: .milliseconds(300), logger: Self.logger)
        let running = Task { try await services.run() }
        let publisher = EventPublisher(connection: connection, logger: Self.logger)
        let event = MemberCreated(memberId: 1, provider: .google)

        #expect(await eventually(timeout: .seconds(10)) { started.load(ordering: .sequentiallyConsistent) })
        try await publisher.publish(Events.memberCreated, event)

        // JetStream's storage lost: the stream is gone, and a publish fails until it is made again.
        try await connection.jetStream.deleteStream(name: Events.stream)
        await #expect(throws: (any Error).self) { try await publisher.publish(Events.memberCreated, event) }
        #expect(await eventually(timeout: .seconds(10)) { (try? await publisher.publish(Events.memberCreated, event)) != nil },
                "the stream was not made again")

        running.cancel()
        _ = await running.result
        await connection.drainAndClose()
    }
}
