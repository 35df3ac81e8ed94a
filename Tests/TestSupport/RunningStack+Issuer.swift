import Contracts
import Foundation
import JSON
import Logging
import Messaging
import NATS
import TokenIssuer

extension RunningStack {
    /// Starts another token-issuer replica on the stack's database and NATS, and waits until it serves.
    /// With `consumesEvents: false` it only answers requests (a stand-in while the shared one is down).
    public func startIssuerReplica(consumesEvents: Bool) async -> ServiceHandle {
        var configuration = issuerConfiguration
        configuration.consumesEvents = consumesEvents
        let replica = ServiceHandle(logger: Self.logger) { [configuration] ready in
            TokenIssuerServer(configuration: configuration, logger: Self.logger.named("token-issuer-replica"), onReady: ready)
        }
        await replica.start()
        return replica
    }

    /// Asks the token-issuer to rotate its signing key now (`auth.issuer.rotate-keys`).
    public func rotateSigningKeys() async throws -> SigningKeyRotation {
        let client = ServiceClient(connection: try await nats(), logger: Self.logger)
        return try await client.call(Endpoints.rotateSigningKeys, RotateSigningKeysRequest(), timeout: .seconds(10))
    }

    /// Runs `action`, then collects the events of `type` published until `until` returns true for
    /// the events seen so far or `timeout` passes; returns what it saw. An event of the type that does
    /// not decode fails the call.
    public func events<Payload>(_ type: EventType<Payload>, timeout: Duration = .seconds(5),
                                during action: () async throws -> Void,
                                until done: @escaping @Sendable ([EventEnvelope<Payload>]) -> Bool) async throws -> [EventEnvelope<Payload>] {
        let connection = try await nats()
        let subscription = try connection.subscribe(type.subject)
        try await connection.flush(timeout: .seconds(10))
        defer { subscription.unsubscribe() }
        try await action()
        let collector = Task {
            var seen: [EventEnvelope<Payload>] = []
            for await message in subscription {
                seen.append(try MessageCoding.decode(EventEnvelope<Payload>.self, from: message.payload))
                if done(seen) { break }
            }
            return seen
        }
        let timer = Task {
            try await Task.sleep(for: timeout)
            subscription.unsubscribe()
        }
        defer { timer.cancel() }
        return try await collector.value
    }

    private static let logger = Logger(label: "test-issuer", level: .warning, format: .text)
}
