import Contracts
import Foundation
import JSON
import Logging
import Messaging
import NATS
import Testing
import TestSupport

/// NATS service discovery (the `micro` protocol): every service of the running stack answers
/// `$SRV.PING`, `$SRV.INFO` and `$SRV.STATS` on the real nats-server, with counts that move
/// when requests go through the gateway.
@Suite("NATS service discovery")
struct DiscoveryTests {
    private static let services: Set<String> = [QueueGroups.tokenVerifier, QueueGroups.memberService, QueueGroups.tokenIssuer]

    @Test("$SRV.PING gathers one answer from each service, in the protocol's shape")
    func pingEveryone() async throws {
        _ = try await TestStack.shared.running()
        let nats = try await Self.connect()
        // Until every service answered, however long a busy machine makes that take.
        let answers = try await Self.gather(nats, "$SRV.PING", window: .seconds(10)) { answers in
            Self.services.isSubset(of: answers.compactMap { try? MessageCoding.decode(ServiceDiscovery.PingResponse.self, from: $0.payload).name })
        }
        await nats.drainAndClose()

        let objects = try answers.map { try MessageCoding.decode([String: JSONValue].self, from: $0.payload) }
        for object in objects {
            #expect(object["type"]?.stringValue == "io.nats.micro.v1.ping_response", "\(object)")
            #expect(object["id"]?.stringValue?.isEmpty == false)
            #expect(object["version"]?.stringValue?.split(separator: ".").count == 3, "not semver: \(object)")
        }
        let pings = try answers.map { try MessageCoding.decode(ServiceDiscovery.PingResponse.self, from: $0.payload) }
        let names = pings.map(\.name)
        #expect(Self.services.isSubset(of: Set(names)), "answers: \(names)")
        #expect(Set(pings.map(\.id)).count == pings.count, "replica IDs are not unique")
    }

    @Test("$SRV.PING.<name> and $SRV.INFO.<name>.<id> reach only that service and that replica")
    func pingByNameAndID() async throws {
        _ = try await TestStack.shared.running()
        let nats = try await Self.connect()
        try await withResource(nats, close: { await $0.drainAndClose() }) { nats in

            let byName = try await Self.gather(nats, "$SRV.PING.\(QueueGroups.memberService)")
            let pings = try byName.map { try MessageCoding.decode(ServiceDiscovery.PingResponse.self, from: $0.payload) }
            #expect(!pings.isEmpty)
            #expect(pings.allSatisfy { $0.name == QueueGroups.memberService }, "\(pings)")
            let id = try #require(pings.first?.id)

            let byID = try await Self.gather(nats, "$SRV.INFO.\(QueueGroups.memberService).\(id)")
            #expect(byID.count == 1)
            let info = try MessageCoding.decode(ServiceDiscovery.InfoResponse.self, from: try #require(byID.first).payload)
            #expect(info.type == "io.nats.micro.v1.info_response")
            #expect(info.id == id)
            let subjects = Set(info.endpoints.map(\.subject))
            #expect(subjects == [Endpoints.memberLogin.subject, Endpoints.memberGet.subject, Endpoints.memberUpdate.subject,
                                 Endpoints.memberLinkIdentity.subject,
                                 Endpoints.memberUnlinkIdentity.subject, Endpoints.memberDelete.subject,
                                 Endpoints.memberAppleNotification.subject, Endpoints.ping(QueueGroups.memberService).subject,
                                 Endpoints.adminFindMembers.subject, Endpoints.adminGetMember.subject, Endpoints.adminSuspendMember.subject,
                                 Endpoints.adminUnsuspendMember.subject, Endpoints.adminDeleteMember.subject],
                    "\(subjects)")
            #expect(info.endpoints.allSatisfy { $0.queueGroup == QueueGroups.memberService })
            let raw = try MessageCoding.decode([String: JSONValue].self, from: try #require(byID.first).payload)
            guard case .array(let endpoints) = raw["endpoints"], case .object(let first) = endpoints.first else {
                Issue.record("no endpoints array: \(raw)")
                return
            }
            #expect(first["queue_group"]?.stringValue == QueueGroups.memberService, "\(first)")
        }
    }

    @Test("$SRV.STATS.member-service counts the logins that went through the gateway")
    func statsCountLogins() async throws {
        let stack = try await TestStack.shared.running()
        let nats = try await Self.connect()
        try await withResource(nats, close: { await $0.drainAndClose() }) { nats in

            let before = try await Self.stats(nats, QueueGroups.memberService, endpoint: "login")
            for _ in 0..<3 {
                #expect(try await stack.googleLogin(sub: RunningStack.uniqueSubject()).status == 200)
            }
            let after = try await Self.stats(nats, QueueGroups.memberService, endpoint: "login")
            #expect(after.endpoint.numRequests >= before.endpoint.numRequests + 3,
                    "before \(before.endpoint.numRequests), after \(after.endpoint.numRequests)")
            #expect(after.endpoint.processingTime > before.endpoint.processingTime)
            #expect(after.endpoint.averageProcessingTime > 0)
            #expect(after.endpoint.subject == Endpoints.memberLogin.subject)
            #expect(after.response.type == "io.nats.micro.v1.stats_response")
            #expect(after.response.started == before.response.started)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            #expect(formatter.date(from: after.response.started) != nil, "started is not RFC 3339: \(after.response.started)")

            let raw = try await nats.request("$SRV.STATS.\(QueueGroups.memberService)", [], timeout: .seconds(10))
            let text = String(decoding: raw.payload, as: UTF8.self)
            for key in ["num_requests", "num_errors", "last_error", "processing_time", "average_processing_time", "queue_group"] {
                #expect(text.contains("\"\(key)\""), "missing \(key): \(text)")
            }
        }
    }

    @Test("$SRV.STATS.token-verifier counts a rejected token as an error")
    func statsCountErrors() async throws {
        let stack = try await TestStack.shared.running()
        let nats = try await Self.connect()
        try await withResource(nats, close: { await $0.drainAndClose() }) { nats in

            let before = try await Self.stats(nats, QueueGroups.tokenVerifier, endpoint: "login")
            let token = try await stack.googleToken(sub: RunningStack.uniqueSubject(),
                                                    claims: ["aud": .string("someone-elses-app"), "azp": .string("someone-elses-app")])
            let response = try await stack.post("/api/auth/google-login", json: GoogleLoginBody(idToken: token, deviceId: "device-1"))
            #expect(response.status == 401)
            let after = try await Self.stats(nats, QueueGroups.tokenVerifier, endpoint: "login")
            #expect(after.endpoint.numErrors >= before.endpoint.numErrors + 1)
            #expect(after.endpoint.numRequests >= before.endpoint.numRequests + 1)
            #expect(!after.endpoint.lastError.isEmpty)
        }
    }

    // MARK: - helpers

    private static func connect() async throws -> NATSConnection {
        try await NATSConnection.connect(TestIdentities.configuration(name: "discovery-test"),
                                         logger: Logger(label: "discovery-test", level: .error))
    }

    /// Publishes an empty request to `subject` with a reply inbox of our own and collects what
    /// arrives there (every replica answers) until `enough` holds for the answers so far, or for all of
    /// `window`. Without `enough` the whole window is the check: a caller that expects no other answer
    /// sees more of them in a longer one.
    private static func gather(_ nats: NATSConnection, _ subject: String, window: Duration = .milliseconds(300),
                               enough: @escaping @Sendable ([NATSMessage]) -> Bool = { _ in false }) async throws -> [NATSMessage] {
        let inbox = "_INBOX.discovery-test.\(UUID().uuidString.lowercased())"
        let subscription = try nats.subscribe(inbox)
        try await nats.flush(timeout: .seconds(10))
        try nats.publish(subject, replyTo: inbox, [])
        let stopper = Task {
            try? await Task.sleep(for: window)
            subscription.unsubscribe()
        }
        defer { stopper.cancel() }
        var answers: [NATSMessage] = []
        for await message in subscription {
            answers.append(message)
            if enough(answers) { subscription.unsubscribe(); break }
        }
        return answers
    }

    private static func stats(_ nats: NATSConnection, _ service: String,
                              endpoint: String) async throws -> (response: ServiceDiscovery.StatsResponse, endpoint: ServiceDiscovery.EndpointStats) {
        let message = try await nats.request("$SRV.STATS.\(service)", [], timeout: .seconds(10))
        let response = try MessageCoding.decode(ServiceDiscovery.StatsResponse.self, from: message.payload)
        #expect(response.name == service)
        let stats = try #require(response.endpoints.first { $0.name == endpoint }, "no endpoint \(endpoint) in \(response)")
        return (response, stats)
    }
}
