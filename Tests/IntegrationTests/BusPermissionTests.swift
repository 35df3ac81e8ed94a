import Contracts
import Crypto
import Foundation
import JSON
import Logging
import Messaging
import NATS
import Testing
import TestSupport

/// The attack of issue 13 replayed against the running stack's nats-server, which runs with the
/// authorization made from `BusIdentity` (SPEC section 9): a client without credentials cannot
/// connect, and each identity may do its job and nothing else.
@Suite("NATS identities and permissions")
struct BusPermissionTests {
    static let logger = Logger(label: "bus-permissions", level: .critical)

    static func connect(_ identity: BusIdentity) async throws -> NATSConnection {
        try #require(TestIdentities.directory != nil, "run the tests with deploy/local/test: NATS with identities")
        return try await NATSConnection.connect(.init(url: TestEnvironment.natsURL, name: "as-\(identity.rawValue)",
                                               access: TestIdentities.access(for: identity)), logger: logger)
    }

    /// Waits until the server's answer to everything sent so far arrived (a violation comes before the PONG),
    /// and 100 ms more for cnats to report one on its thread. The fixed window is the check itself: a caller
    /// expects no violation, and a busy machine that stretches it only lets the check see more.
    static func settle(_ connection: NATSConnection) async throws {
        try await connection.flush(timeout: .seconds(5))
        try await Task.sleep(for: .milliseconds(100))
    }

    /// The connection's violation count once it reached `count` (cnats reports them on a thread of
    /// its own, after the PONG may have arrived), or what it is after 5 s.
    static func violations(_ connection: NATSConnection, reaching count: Int) async throws -> Int {
        try await connection.flush(timeout: .seconds(5))
        _ = await eventually(timeout: .seconds(5), poll: .milliseconds(10)) { connection.permissionViolations >= count }
        // A window for one violation too many to show: the callers expect exactly `count`.
        try await Task.sleep(for: .milliseconds(50))
        return connection.permissionViolations
    }

    @Test("a client without credentials, or with a key the server does not know, is refused at connect")
    func unknownClientsAreRefused() async throws {
        _ = try await TestStack.shared.running()
        try #require(TestIdentities.directory != nil, "run the tests with deploy/local/test: NATS with identities")
        await #expect(throws: NATSError.self) {
            try await NATSConnection.connect(.init(url: TestEnvironment.natsURL, name: "anonymous", maxReconnect: 0), logger: Self.logger)
        }
        let stranger = FileManager.default.temporaryDirectory.appendingPathComponent("stranger-\(UUID().uuidString).nk")
        let key = try NKey.generateUser()
        try key.seed.write(to: stranger, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: stranger) }
        await #expect(throws: NATSError.self) {
            try await NATSConnection.connect(
                .init(url: TestEnvironment.natsURL, name: "stranger", maxReconnect: 0,
                      access: .init(nkey: .init(publicKey: key.publicKey, seedFile: stranger.path))), logger: Self.logger)
        }
    }

    @Test("subscribing to everything, to another identity's inbox or to another service's queue is a violation")
    func noEavesdropping() async throws {
        _ = try await TestStack.shared.running()
        let member = try await Self.connect(.memberService)
        let everything = try member.subscribe(">")
        #expect(try await Self.violations(member, reaching: 1) == 1)
        for subject in [BusIdentity.gateway.inboxPrefix + ".>", "_INBOX.>", Endpoints.verify.subject] {
            _ = try member.subscribe(subject, queue: QueueGroups.tokenVerifier)
        }
        #expect(try await Self.violations(member, reaching: 4) == 4)

        // Nothing published reaches the refused subscription.
        let tests = try await NATSConnection.connect(TestIdentities.configuration(name: "publisher"), logger: Self.logger)
        try await withResource(tests, close: { await $0.drainAndClose() }) { tests in
            try tests.publish("anything.at.all", Array("secret".utf8))
            try await tests.flush(timeout: .seconds(5))
            #expect(!(try await Self.first(everything, within: .milliseconds(500))))
            await member.drainAndClose()
        }
    }

    @Test("a service answers only on an inbox: a caller cannot aim its answer at another subject")
    func answersGoToInboxesOnly() async throws {
        _ = try await TestStack.shared.running()
        let gateway = try await Self.connect(.gateway)
        let tests = try await NATSConnection.connect(TestIdentities.configuration(name: "reply-target"), logger: Self.logger)
        try await withResource((gateway, tests), close: { await $0.0.drainAndClose(); await $0.1.drainAndClose() }) { _ in
            let target = "probe.not-an-inbox.\(UUID().uuidString.lowercased())"
            let stolen = try tests.subscribe(target)
            let inbox = "\(BusIdentity.gateway.inboxPrefix).probe.\(UUID().uuidString.lowercased())"
            let answered = try gateway.subscribe(inbox)
            try await tests.flush(timeout: .seconds(5))
            try await gateway.flush(timeout: .seconds(5))
            let ping = try MessageCoding.encode(PingRequest())
            try gateway.publish(Endpoints.ping(QueueGroups.memberService).subject, replyTo: target, ping)
            try gateway.publish(Endpoints.ping(QueueGroups.memberService).subject, replyTo: inbox, ping)

            #expect(try await Self.first(answered, within: .seconds(5)), "the control: an answer on the caller's inbox")
            #expect(!(try await Self.first(stolen, within: .milliseconds(500))), "an answer reached \(target)")
        }
    }

    /// Whether a message arrives on `subscription` within `window`.
    static func first(_ subscription: NATSSubscription, within window: Duration) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { for await _ in subscription { return true }; return false }
            group.addTask { try await Task.sleep(for: window); return false }  // the callers expect nothing: the window is the check
            defer { group.cancelAll(); subscription.unsubscribe() }
            return try await group.next()!
        }
    }

    /// What one identity must not do, each a subject the attack used or a neighbour of its grant.
    static let forbidden: [(BusIdentity, publish: [String], subscribe: [String])] = {
        let stream = Events.stream
        let bucket = "KV_\(Events.webhookBucket)"
        // The event stream's and the webhook-relay's bucket's: whoever edits a stream's subjects reaches others' replies.
        let streamEdits = [stream, bucket].flatMap { ["$JS.API.STREAM.UPDATE.\($0)", "$JS.API.STREAM.DELETE.\($0)", "$JS.API.STREAM.PURGE.\($0)"] }
        let othersDurable = "$JS.API.CONSUMER.MSG.NEXT.\(stream).\(Events.Durables.revocations)"
        return [
            (.gateway, [Events.memberDeleted.subject, Events.sessionEnded.subject, Endpoints.rotateSigningKeys.subject,
                        Endpoints.issueTokens.subject, Endpoints.memberLogin.subject, Endpoints.memberLinkIdentity.subject,
                        Endpoints.memberAppleNotification.subject, Endpoints.endDeletedMember.subject, Endpoints.endIdentitySessions.subject,
                        Endpoints.verify.subject, Endpoints.adminSuspendMember.subject, Endpoints.adminDeleteMember.subject,
                        Endpoints.adminEndSession.subject, Endpoints.memberSuspension.subject,
                        "$JS.API.CONSUMER.DELETE.\(stream).\(Events.Durables.revocations)", othersDurable,
                        "$JS.API.CONSUMER.DURABLE.CREATE.\(stream).\(Events.Durables.sessionsOfDeletedMembers)"] + streamEdits,
             [Endpoints.verify.subject, Endpoints.issueTokens.subject, "_INBOX_token-issuer.>", Endpoints.rotateSigningKeys.subject]),
            (.tokenVerifier, [Endpoints.issueTokens.subject, Endpoints.memberGet.subject, Endpoints.memberDelete.subject,
                              Endpoints.refreshTokens.subject, Events.memberDeleted.subject,
                              "$JS.API.CONSUMER.MSG.NEXT.\(stream).\(Events.Durables.sessionsOfDeletedMembers)"] + streamEdits,
             [Endpoints.memberLogin.subject, "_INBOX_gateway.>", Events.memberDeleted.subject]),
            (.memberService, [Endpoints.verify.subject, Endpoints.login.subject, Endpoints.memberLogin.subject, Endpoints.refreshTokens.subject,
                              Endpoints.logoutAll.subject, Events.sessionEnded.subject, Endpoints.adminEndSession.subject,
                              Endpoints.adminListSessions.subject] + streamEdits,
             [Endpoints.issueTokens.subject, "_INBOX_gateway.>"]),
            (.tokenIssuer, [Endpoints.memberDelete.subject, Endpoints.memberLogin.subject, Events.memberDeleted.subject, Endpoints.verify.subject,
                            Endpoints.adminSuspendMember.subject, Events.memberSuspended.subject, othersDurable] + streamEdits,
             [Endpoints.verify.subject, "_INBOX_gateway.>"]),
            (.adminAPI, [Endpoints.issueTokens.subject, Endpoints.memberLogin.subject, Endpoints.login.subject, Endpoints.refreshTokens.subject,
                         Endpoints.memberGet.subject, Endpoints.memberSuspension.subject, Endpoints.endDeletedMember.subject,
                         Endpoints.rotateSigningKeys.subject, Events.memberDeleted.subject, Events.memberSuspended.subject,
                         Events.sessionEnded.subject, othersDurable,
                         "$JS.API.CONSUMER.DELETE.\(stream).\(Events.Durables.audit)"] + streamEdits,
             [">", "events.>", "_INBOX_gateway.>", Endpoints.adminFindMembers.subject, Endpoints.adminEndSession.subject]),
            (.webhookRelay, [Endpoints.issueTokens.subject, Endpoints.memberLogin.subject, Endpoints.memberGet.subject, Endpoints.refreshTokens.subject,
                             Endpoints.adminDeleteMember.subject, Events.memberDeleted.subject, Events.sessionEnded.subject, othersDurable,
                             "$JS.API.CONSUMER.DELETE.\(stream).\(Events.Durables.audit)",
                             "$JS.API.CONSUMER.DURABLE.CREATE.\(stream).\(Events.Durables.sessionsOfDeletedMembers)",
                             "$JS.API.CONSUMER.DELETE.\(stream).webhook-orders", "$JS.API.STREAM.CREATE.\(stream)",
                             "$JS.ACK.\(stream).\(Events.Durables.sessionsOfDeletedMembers).1.1.1.1.1",
                             "$KV.\(Events.webhookBucket).other", "$KV.\(Events.webhookBucket).slot.webhook-33",
                             "$JS.API.DIRECT.GET.KV_\(Events.webhookBucket).$KV.\(Events.webhookBucket).slot.webhook-01",
                             "$JS.API.CONSUMER.DURABLE.CREATE.\(stream).webhook-01",
                             "$JS.API.STREAM.CREATE.KV_\(Events.webhookBucket)"] + streamEdits,
             [">", "events.>", "_INBOX_gateway.>", Endpoints.memberLogin.subject]),
            (.operator, [Endpoints.issueTokens.subject, Endpoints.memberLogin.subject, Endpoints.login.subject, Events.memberDeleted.subject,
                         othersDurable, "$JS.API.CONSUMER.DELETE.\(stream).\(Events.Durables.revocations)",
                         "$JS.ACK.\(stream).\(Events.Durables.sessionsOfDeletedMembers).1.1.1.1.1"] + streamEdits,
             [">", "_INBOX_gateway.>", Endpoints.rotateSigningKeys.subject]),
            (.streamAdmin, [Endpoints.issueTokens.subject, Endpoints.rotateSigningKeys.subject, Events.memberDeleted.subject, othersDurable,
                            "$JS.API.STREAM.DELETE.\(stream)", "$JS.API.STREAM.PURGE.\(stream)", "$JS.API.CONSUMER.CREATE.\(stream)",
                            "$JS.API.STREAM.DELETE.\(bucket)", "$JS.API.STREAM.PURGE.\(bucket)", "$KV.\(Events.webhookBucket).slot.webhook-01"],
             [">", "events.>", "_INBOX_gateway.>"]),
        ]
    }()


    @Test("each identity may publish and subscribe where its grant says, and nowhere else",
          arguments: BusIdentity.allCases)
    func allowList(_ identity: BusIdentity) async throws {
        _ = try await TestStack.shared.running()
        let connection = try await Self.connect(identity)
        try await withResource(connection, close: { await $0.drainAndClose() }) { connection in
            let grant = identity.grant

            // Allowed: a concrete subject of each grant entry (a wildcard token made concrete). Events
            // and acknowledgements are left out: an empty one would land in the stream or ack a
            // message; the suites publish and acknowledge them for real.
            for subject in grant.publish.map(Self.concrete)
                where !subject.hasPrefix("events.") && !subject.hasPrefix("$JS.ACK.") && !subject.hasPrefix("$JS.FC.")
                    && !grant.denyPublish.contains(where: { Self.matches($0, subject) }) {
                try connection.publish(subject, [])
            }
            var subscriptions = [try connection.subscribe(identity.inboxPrefix + ".probe")]
            for subject in grant.subscribe {
                subscriptions.append(try connection.subscribe(Self.concrete(subject), queue: "permission-probe"))
            }
            try await Self.settle(connection)
            #expect(connection.permissionViolations == 0, "\(identity.rawValue) was refused one of its own subjects")
            subscriptions.forEach { $0.unsubscribe() }

            let (_, publish, subscribe) = try #require(Self.forbidden.first { $0.0 == identity })
            for (index, subject) in publish.enumerated() {
                try connection.publish(subject, [])
                #expect(try await Self.violations(connection, reaching: index + 1) == index + 1, "\(identity.rawValue) may publish to \(subject)")
            }
            for (index, subject) in subscribe.enumerated() {
                _ = try connection.subscribe(subject)
                let expected = publish.count + index + 1
                #expect(try await Self.violations(connection, reaching: expected) == expected, "\(identity.rawValue) may subscribe to \(subject)")
            }
        }
    }

    /// A subject matching `pattern` with its wildcards filled in (`*` → `probe`, `>` → `probe.x`).
    /// Publishing an empty body to it changes nothing: no one serves `probe`, a service cannot
    /// decode an empty request (and has no reply subject to answer), and the JetStream API
    /// refuses it as malformed.
    static func concrete(_ pattern: String) -> String {
        pattern.split(separator: ".").map { $0 == "*" ? "probe" : $0 == ">" ? "probe.x" : String($0) }.joined(separator: ".")
    }

    /// Whether `subject` matches the NATS pattern `pattern`.
    static func matches(_ pattern: String, _ subject: String) -> Bool {
        let patternTokens = pattern.split(separator: "."), subjectTokens = subject.split(separator: ".")
        for (index, token) in patternTokens.enumerated() {
            if token == ">" { return subjectTokens.count > index }
            guard index < subjectTokens.count, token == "*" || token == subjectTokens[index] else { return false }
        }
        return patternTokens.count == subjectTokens.count
    }
}
