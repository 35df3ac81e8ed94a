import Contracts
import Foundation
import JSON
import Logging
import Messaging
import NATS
import Testing
import TestSupport

/// The services' durable consumers cannot be reconfigured, and no one may make JetStream deliver events onto
/// a service's subject (SPEC section 9): nats-server checks no permission on a consumer's deliver subject,
/// so only the owners of durables may create consumers at all, and each only its own, which exists from its
/// service's start (the webhook-relay's 32 included: an existing pull consumer cannot become a push consumer; an
/// owner may still have nats-server delete one unread and make the name again, which the README's security model
/// tells for the member-service's).
@Suite("Durable consumers cannot be reconfigured; no push consumer onto a service subject")
struct DurableConsumerTamperTests {
    static let logger = Logger(label: "durable-tamper", level: .critical)

    /// Each durable and the identity that owns it (makes it; the webhook-relay's are the member-service's to make, the
    /// relay's to read).
    static let owners: [(durable: String, owner: BusIdentity)] = [
        (Events.Durables.revocations, .tokenVerifier),
        (Events.Durables.sessionsOfDeletedMembers, .tokenIssuer),
        (Events.Durables.sessionsOfUnlinkedIdentities, .tokenIssuer),
    ] + Events.Durables.webhookSlots.map { ($0, .memberService) }

    /// Runs `body` with the tests' own connection (to read consumers back) and one as `identity`, on the shared stack.
    static func connected(as identity: BusIdentity, _ body: (_ tests: NATSConnection, _ connection: NATSConnection) async throws -> Void)
        async throws {
        _ = try await TestStack.shared.running()
        let tests = try await NATSConnection.connect(TestIdentities.configuration(name: "tamper-reader"), logger: logger)
        // The member-service makes the webhook-relay's consumers as it starts, all of them.
        try await waitUntil(timeout: .seconds(30), "the member-service did not make the webhook-relay's consumers") {
            for slot in Events.Durables.webhookSlots where (try? await tests.jetStream.consumerState(stream: Events.stream, durable: slot)) == nil {
                return false
            }
            return true
        }
        let connection = try await NATSConnection.connect(.init(url: TestEnvironment.natsURL, name: "tamper-\(identity.rawValue)",
                                                                access: TestIdentities.access(for: identity)), logger: logger)
        try await withResource((tests, connection), close: { await $0.0.drainAndClose(); await $0.1.drainAndClose() }) {
            try await body($0.0, $0.1)
        }
    }

    /// A consumer's configuration as the server holds it, read with the tests' own connection; nil when there is none.
    static func configuration(_ tests: NATSConnection, _ name: String) async throws -> [String: JSONValue]? {
        let reply = try await tests.request("$JS.API.CONSUMER.INFO.\(Events.stream).\(name)", [], timeout: .seconds(5))
        let info = try MessageCoding.decode([String: JSONValue].self, from: reply.payload)
        guard case .object(let config)? = info["config"] else { return nil }
        return config
    }

    /// The create requests one could try for `name`: the unnamed subject (with the name in the body, with and
    /// without `durable_name`), the named ones, the durable one.
    static func attempts(_ name: String, config: [String: JSONValue]) throws -> [(subject: String, body: [UInt8])] {
        let stream = Events.stream
        func body(_ config: [String: JSONValue]) throws -> [UInt8] {
            try MessageCoding.encode(["stream_name": JSONValue.string(stream), "config": .object(config)])
        }
        var named = config
        named["name"] = .string(name)
        var durable = named
        durable["durable_name"] = .string(name)
        return [
            ("$JS.API.CONSUMER.CREATE.\(stream)", try body(named)),
            ("$JS.API.CONSUMER.CREATE.\(stream)", try body(durable)),
            ("$JS.API.CONSUMER.CREATE.\(stream).\(name)", try body(durable)),
            ("$JS.API.CONSUMER.CREATE.\(stream).\(name).events.none", try body(durable)),
            ("$JS.API.CONSUMER.DURABLE.CREATE.\(stream).\(name)", try body(durable)),
        ]
    }

    @Test("no identity's grant reaches the unnamed consumer create subject")
    func noUnnamedCreate() {
        let unnamed = "$JS.API.CONSUMER.CREATE.\(Events.stream)"
        for identity in BusIdentity.allCases {
            #expect(!identity.grant.publish.contains { BusPermissionTests.matches($0, unnamed) }, "\(identity.rawValue) may create unnamed consumers")
        }
    }

    @Test("a durable's name with another filter_subject, sent by every identity but its owner, leaves the durable as it was",
          arguments: BusIdentity.allCases)
    func reconfigure(_ identity: BusIdentity) async throws {
        try await Self.connected(as: identity) { tests, connection in
            let durables = Self.owners.filter { $0.owner != identity }.map(\.durable)
            var before: [String: [String: JSONValue]] = [:]
            for durable in durables { before[durable] = try #require(try await Self.configuration(tests, durable), "\(durable) does not exist") }
            let config: [String: JSONValue] = ["filter_subject": .string("events.none"), "ack_policy": .string("explicit"),
                                               "deliver_policy": .string("all")]
            try await Self.expectRefused(durables, config: config, identity: identity, connection: connection)
            for durable in durables {
                let after = try #require(try await Self.configuration(tests, durable))
                #expect(after["filter_subject"] == before[durable]?["filter_subject"], "\(identity.rawValue) moved \(durable)'s filter")
                #expect(after == before[durable], "\(identity.rawValue) changed \(durable)")
            }
        }
    }

    @Test("a push consumer aimed at auth.issuer.rotate-keys is refused for every identity, its owner's durable name included",
          arguments: BusIdentity.allCases)
    func pushOntoServiceSubject(_ identity: BusIdentity) async throws {
        try await Self.connected(as: identity) { tests, connection in
            let push: [String: JSONValue] = ["deliver_subject": .string(Endpoints.rotateSigningKeys.subject), "ack_policy": .string("none"),
                                              "deliver_policy": .string("all")]
            let names = ["push-\(identity.rawValue)-\(UUID().uuidString.prefix(8).lowercased())"]
                + Self.owners.filter { $0.owner == identity }.map(\.durable)
            var before: [String: [String: JSONValue]?] = [:]
            for name in names { before[name] = try await Self.configuration(tests, name) }
            try await Self.expectRefused(names, config: push, identity: identity, connection: connection)
            for name in names {
                let after = try await Self.configuration(tests, name)
                #expect(after == before[name] ?? nil, "\(identity.rawValue) made or changed \(name)")
                #expect(after?["deliver_subject"] == nil, "\(name) delivers to \(String(describing: after?["deliver_subject"]))")
            }
        }
    }

    @Test("a webhook-relay consumer the member-service's identity tries to change (headers only, deleted when unread) is left as made: nats-server refuses the change, or the member-service sets it back")
    func relayConsumerSetBack() async throws {
        try await Self.connected(as: .memberService) { tests, connection in
            // The last slot: the tests' endpoints claim the first free ones.
            let slot = try #require(Events.Durables.webhookSlots.last)
            let before = try #require(try await Self.configuration(tests, slot))
            var changed = before
            changed["headers_only"] = .bool(true)
            changed["inactive_threshold"] = .number(60_000_000_000)
            let reply = try await connection.request("$JS.API.CONSUMER.DURABLE.CREATE.\(Events.stream).\(slot)",
                                                     try MessageCoding.encode(["stream_name": JSONValue.string(Events.stream),
                                                                               "config": .object(changed)]),
                                                     timeout: .seconds(5))
            let answer = try MessageCoding.decode([String: JSONValue].self, from: reply.payload)
            if answer["error"] != nil {
                // nats-server 2.9 refuses any change to a consumer that starts at a time, as these do.
                #expect(try await Self.configuration(tests, slot) == before, "a refused change changed \(slot)")
                return
            }
            // A server that takes the change: the member-service sets the consumer back.
            try await waitUntil(timeout: .seconds(30), "the member-service did not set \(slot) back") {
                guard let state = try? await tests.jetStream.consumerState(stream: Events.stream, durable: slot) else { return false }
                return WebhookSlotProvisioning.flaws(of: state.configuration).isEmpty
            }
        }
    }

    /// Sends every attempt to make or change the consumers `names` with `config`, all at once: each is refused by the
    /// server (an error answer), or denied by the identity's permissions (no answer within the 2 s they share).
    static func expectRefused(_ names: [String], config: [String: JSONValue], identity: BusIdentity,
                              connection: NATSConnection) async throws {
        let attempts = try names.flatMap { try Self.attempts($0, config: config) }
        let replies = await connection.requestAll(attempts.map { NATSConnection.Request($0.subject, $0.body) }, timeout: .seconds(2))
        for (attempt, reply) in zip(attempts, replies) {
            guard case .success(let reply) = reply else { continue }
            let answer = try MessageCoding.decode([String: JSONValue].self, from: reply.payload)
            #expect(answer["error"] != nil, "\(identity.rawValue) changed a consumer through \(attempt.subject): \(reply.payload.count) bytes")
        }
    }
}
