import Contracts
import Crypto
import DevIDP
import Foundation
import JSON
import Testing
import TestSupport
import Webhooks

/// The webhook-relay against real receivers (the stack's dev-idp inboxes, in the test process): each test has
/// endpoints of its own (new durable consumers) and looks only at its own members' events.
///
/// On a stack of its own: an endpoint takes every member's events, and those of the shared stack's other suites
/// queued behind a receiver's outage past the test's wait when those suites ran beside it (a run of at most 10
/// tests at once spread their logins over the whole run, and the outage test timed out draining them).
@Suite("Webhook relay: signed deliveries from the event stream")
struct WebhookRelayTests {
    private static let stack = TestStack.isolated()

    @Test("every member.created of 10 new members arrives within seconds, each signature verified by a plain HMAC-SHA256")
    func createdAndSigned() async throws {
        let stack = try await Self.stack.running()
        let endpoint = TestWebhookEndpoint(stack: stack, events: ["member.created"])
        try await stack.setWebhookInbox(endpoint.name, .init(keepDeliveries: true))
        let relay = try await TestWebhookRelay.start(stack, endpoints: [endpoint])
        defer { Task { await relay.stop() } }

        var members: Set<Int64> = []
        for _ in 0..<10 { members.insert(try await stack.googleSession().memberId) }
        let arrived = try await arrival(timeout: .seconds(20)) {
            let inbox = try await stack.webhookInbox(endpoint.name)
            return Set(inbox.events.compactMap(\.memberId)).isSuperset(of: members) ? inbox : nil
        }
        let inbox = try #require(arrived, "not every member.created arrived: \(relay.log.lines)")
        let ours = inbox.events.filter { $0.memberId.map(members.contains) ?? false }
        #expect(ours.count == 10)
        for event in ours {
            #expect(event.type == "member.created")
            #expect(event.delivered == 1)
            let body = try #require(event.body.flatMap { Data(base64Encoded: $0) })
            let timestamp = try #require(event.timestamp.flatMap { Int64($0) })
            #expect(abs(Date().timeIntervalSince1970 - Double(timestamp)) < 300)
            // The spec's computation, by hand: HMAC-SHA256 keyed with the decoded secret over "id.timestamp.body".
            let mac = HMAC.sha256(key: endpoint.secret.key, message: Array("\(event.id).\(timestamp).".utf8) + Array(body))
            #expect(event.signature == "v1," + Data(mac).base64EncodedString())
            let json = try MessageCoding.decode(JSONValue.self, from: Array(body))
            guard case .object(let fields) = json, case .object(let data)? = fields["data"] else {
                Issue.record("the body is not an event: \(String(decoding: body, as: UTF8.self))")
                continue
            }
            #expect(fields["id"] == .string(event.id), "webhook-id is the event's own ID")
            #expect(fields["type"] == .string("member.created"))
            #expect(fields["occurredAt"]?.stringValue != nil)
            #expect(data["provider"] == .string("GOOGLE"))
        }
    }

    @Test("with the receiver answering 503 for 30 s while members are created and deleted, every event arrives once it answers 200, retried under the same webhook-id")
    func receiverDown() async throws {
        let stack = try await Self.stack.running()
        let endpoint = TestWebhookEndpoint(stack: stack, events: ["member.created", "member.deleted"])
        try await stack.setWebhookInbox(endpoint.name, .init(secret: endpoint.secret.text, status: 503))
        let relay = try await TestWebhookRelay.start(stack, endpoints: [endpoint])
        defer { Task { await relay.stop() } }

        // The outage is the scenario: 30 s, members created and deleted at its start, middle and end.
        let outageEnds = ContinuousClock.now + .seconds(30)
        var created: Set<Int64> = []
        var deleted: Set<Int64> = []
        for round in 0..<3 {
            for index in 0..<3 {
                let login = try await stack.googleSession()
                created.insert(login.memberId)
                if index < 2 {
                    #expect(try await stack.deleteAccount(login.accessToken).status == 204)
                    deleted.insert(login.memberId)
                }
            }
            if round < 2 { try await Task.sleep(until: ContinuousClock.now + .seconds(10), clock: .continuous) }
        }
        // Refused while it lasts: at most WEBHOOK_CONCURRENCY members' events are tried at once (the others, the
        // suite's other tests' members included, wait behind them in the stream), and none is delivered.
        let refused = try await arrival(timeout: .seconds(30)) {
            let events = try await stack.webhookInbox(endpoint.name).events
            return events.isEmpty ? nil : events
        }
        #expect(refused?.allSatisfy { $0.delivered == 0 } == true, "delivered during the outage: \(String(describing: refused))")
        try await Task.sleep(until: outageEnds, clock: .continuous)
        try await stack.setWebhookInbox(endpoint.name, .init(status: 200))

        let inbox = try #require(try await arrival(timeout: .seconds(30)) {
            let inbox = try await stack.webhookInbox(endpoint.name)
            let ours = inbox.events.filter { $0.memberId.map(created.contains) ?? false }
            return ours.count == created.count + deleted.count && ours.allSatisfy({ $0.delivered >= 1 }) ? ours : nil
        }, "not every event arrived after the outage: \(relay.log.lines.suffix(20))")
        #expect(Set(inbox.filter { $0.type == "member.created" }.compactMap(\.memberId)) == created)
        #expect(Set(inbox.filter { $0.type == "member.deleted" }.compactMap(\.memberId)) == deleted)
        // The inbox counts by webhook-id: the events refused before were taken under the same ID, signed each time.
        let refusedIDs = Set(refused?.map(\.id) ?? [])
        let all: [WebhookInboxes.Summary.Event] = try await arrival(timeout: .seconds(30)) {
            let events = try await stack.webhookInbox(endpoint.name).events
            return events.filter { refusedIDs.contains($0.id) && $0.delivered >= 1 }.count == refusedIDs.count ? events : nil
        } ?? []
        let retried = all.filter { $0.attempts >= 2 && $0.delivered == 1 }
        #expect(!retried.isEmpty && Set(retried.map(\.id)).isSuperset(of: refused?.map(\.id) ?? []), "\(all)")
        for event in inbox {
            #expect(event.delivered == 1, "\(event.id) \(event.type) delivered \(event.delivered) times")
            #expect(event.verified)
        }
        print("webhook outage: \(inbox.count) events, \(retried.count) of them refused and retried under the same webhook-id")
    }

    @Test("an event type the endpoint did not ask for is never sent")
    func onlyAskedTypes() async throws {
        let stack = try await Self.stack.running()
        let endpoint = TestWebhookEndpoint(stack: stack, events: ["member.deleted"])
        let relay = try await TestWebhookRelay.start(stack, endpoints: [endpoint])
        defer { Task { await relay.stop() } }

        let login = try await stack.googleSession()
        _ = try await stack.googleSession(sub: RunningStack.uniqueSubject())
        #expect(try await stack.deleteAccount(login.accessToken).status == 204)
        // member.deleted comes after the member's created, logged-in and session events in the stream, and the
        // consumer takes the stream in order: once it arrived, nothing before it can still come.
        let inbox = try #require(try await arrival(timeout: .seconds(20)) {
            let inbox = try await stack.webhookInbox(endpoint.name)
            return inbox.events.contains { $0.memberId == login.memberId } ? inbox : nil
        }, "member.deleted did not arrive: \(relay.log.lines)")
        #expect(inbox.events.allSatisfy { $0.type == "member.deleted" }, "\(inbox.events.map(\.type))")
    }

    @Test("a 410 disables the endpoint until the webhooks file changes; another endpoint goes on meanwhile")
    func goneDisables() async throws {
        let stack = try await Self.stack.running()
        let gone = TestWebhookEndpoint(stack: stack, events: ["member.created"])
        let control = TestWebhookEndpoint(stack: stack, events: ["member.created"])
        try await stack.setWebhookInbox(gone.name, .init(status: 410))
        let relay = try await TestWebhookRelay.start(stack, endpoints: [gone, control])
        defer { Task { await relay.stop() } }

        let first = try await stack.googleSession().memberId
        #expect(try await arrival(timeout: .seconds(20)) { try await stack.webhookInbox(gone.name).attempts >= 1 ? true : nil } == true)
        #expect(await eventually(timeout: .seconds(10)) { relay.log.lines.contains { $0.contains("410") && $0.contains(gone.name) } },
                "the 410 was not logged: \(relay.log.lines)")
        // The deliveries that were in flight together got their 410 too; none starts after.
        let refusedAttempts = try await stack.webhookInbox(gone.name).attempts

        // The receiver would take it now, but nothing more is sent: the control endpoint gets the next member, the
        // disabled one's consumer keeps it.
        try await stack.setWebhookInbox(gone.name, .init(status: 200))
        let second = try await stack.googleSession().memberId
        #expect(try await arrival(timeout: .seconds(20)) {
            try await stack.webhookInbox(control.name).events.contains { $0.memberId == second } ? true : nil
        } == true)
        #expect(try await stack.webhookInbox(gone.name).attempts == refusedAttempts)

        // The file changes elsewhere: still disabled (the 410 was for its entry). The control endpoint now also asks
        // for member.deleted; a new endpoint, once it claimed a consumer, tells that the relay read the file.
        var renamedControl = control
        renamedControl.events = ["member.created", "member.deleted"]
        let marker = TestWebhookEndpoint(stack: stack, events: ["member.created"])
        try relay.rewrite([gone, renamedControl, marker])
        try await relay.waitForConsumer(marker, on: stack)
        let third = try await stack.googleSession()
        #expect(try await stack.deleteAccount(third.accessToken).status == 204)
        #expect(try await arrival(timeout: .seconds(20)) {
            try await stack.webhookInbox(control.name).events.contains { $0.memberId == third.memberId && $0.type == "member.deleted" }
                ? true : nil
        } == true, "the control endpoint's new entry was not read: \(relay.log.lines)")
        #expect(try await stack.webhookInbox(gone.name).attempts == refusedAttempts, "an unchanged entry stays disabled")
        // Then its entry changes: it is tried again, and gets what it missed (the events handed back at the stop, at
        // once, or after the ack wait, 30 s).
        var mended = gone
        mended.events = ["member.created", "identity.linked"]
        try relay.rewrite([mended, renamedControl, marker])
        let inbox = try #require(try await arrival(timeout: .seconds(60)) {
            let inbox = try await stack.webhookInbox(gone.name)
            let members = Set(inbox.events.filter { $0.delivered >= 1 }.compactMap(\.memberId))
            return members.isSuperset(of: [first, second]) && inbox.events.allSatisfy({ $0.delivered >= 1 }) ? inbox : nil
        }, "the re-enabled endpoint did not get its events: \(relay.log.lines)")
        // The event answered 410 came again, under its ID, once the endpoint was enabled.
        #expect(inbox.events.contains { $0.attempts == 2 && $0.delivered == 1 }, "\(inbox.events)")
    }

    @Test("a URL that resolves to 127.0.0.1 is refused without WEBHOOK_ALLOW_PRIVATE_ADDRESSES, and a redirect is not followed; both are logged")
    func refusedDestinations() async throws {
        let stack = try await Self.stack.running()
        let port = try #require(URLComponents(string: stack.devIDPURL)?.port)
        // localhost: the name resolves to the loopback address, which the relay sees only after DNS.
        let loopbackName = TestWebhookEndpoint(stack: stack, events: ["member.created"])
        var loopback = loopbackName
        loopback.url = "http://localhost:\(port)/webhooks/\(loopbackName.name)"
        let strict = try await TestWebhookRelay.start(stack, endpoints: [loopback], allowPrivate: false)
        defer { Task { await strict.stop() } }

        let target = TestWebhookEndpoint(stack: stack, events: ["member.created"])
        let redirecting = TestWebhookEndpoint(stack: stack, events: ["member.created"])
        try await stack.setWebhookInbox(redirecting.name, .init(status: 302, location: target.url))
        let relay = try await TestWebhookRelay.start(stack, endpoints: [redirecting])
        defer { Task { await relay.stop() } }

        _ = try await stack.googleSession()
        #expect(await eventually(timeout: .seconds(20)) {
            strict.log.lines.contains { $0.contains(loopback.name) && $0.contains("127.0.0.1") && $0.contains("loopback") }
        }, "the refusal was not logged: \(strict.log.lines)")
        #expect(await eventually(timeout: .seconds(20)) {
            (try? await stack.webhookInbox(redirecting.name).attempts) ?? 0 >= 2
                && relay.log.lines.contains { $0.contains(redirecting.name) && $0.contains("redirect") }
        }, "the redirect was not retried and logged: \(relay.log.lines)")
        #expect(try await stack.webhookInbox(loopback.name).attempts == 0, "the loopback address was reached")
        #expect(try await stack.webhookInbox(target.name).attempts == 0, "the redirect was followed")
    }

    /// The environment of a `webhook-relay` process serving `endpoint` alone. The file is written by an in-process
    /// relay that only claims the consumer, then stops (releasing it: the process takes it back, and its place, from the
    /// file written again).
    static func processEnvironment(_ stack: RunningStack, _ endpoint: TestWebhookEndpoint, concurrency: Int,
                                   logLevel: String) async throws -> [String: String] {
        let maker = try await TestWebhookRelay.start(stack, endpoints: [endpoint])
        await maker.stop()
        try maker.rewrite([endpoint])
        return [
            "WEBHOOKS_FILE": maker.path, "WEBHOOK_ALLOW_HTTP": "true", "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true",
            "WEBHOOK_CONCURRENCY": String(concurrency), "NATS_URL": stack.natsURL, "LOG_LEVEL": logLevel,
        ].merging(TestIdentities.environment(for: "webhook-relay")) { $1 }
    }

    @Test("the relay killed with SIGKILL in the middle of a delivery run: after it restarts, every event has arrived at least once")
    func killedMidRun() async throws {
        let stack = try await Self.stack.running()
        let endpoint = TestWebhookEndpoint(stack: stack, events: ["member.created"])
        // A slow receiver, one delivery at a time: the run lasts long enough to be cut.
        try await stack.setWebhookInbox(endpoint.name, .init(secret: endpoint.secret.text, delayMs: 200))
        let environment = try await Self.processEnvironment(stack, endpoint, concurrency: 1, logLevel: "warning")
        // The members first, then the relay: the whole run waits in its consumer, however slow the logins are.
        var members: Set<Int64> = []
        for _ in 0..<30 { members.insert(try await stack.googleSession().memberId) }
        var process = try await ServiceProcess.start("webhook-relay", environment: environment)
        defer { process.kill() }
        let midway = try await arrival(timeout: .seconds(30)) {
            let delivered = try await stack.webhookInbox(endpoint.name).events.count { $0.memberId.map(members.contains) ?? false }
            return delivered >= 5 ? delivered : nil
        }
        #expect(midway != nil && midway! < 30, "the run was over before the kill: \(String(describing: midway))")
        process.kill()
        _ = await process.waitForExit(timeout: .seconds(10))
        process = try await ServiceProcess.start("webhook-relay", environment: environment)

        // The restarted relay takes the dead one's lease once it went unrenewed 15 s, then waits out the ack wait (30 s)
        // for the events the dead one held.
        let inbox = try #require(try await arrival(timeout: .seconds(90)) {
            let inbox = try await stack.webhookInbox(endpoint.name)
            return Set(inbox.events.filter { $0.delivered >= 1 }.compactMap(\.memberId)).isSuperset(of: members) ? inbox : nil
        }, "events were lost: \(process.errorOutput)")
        let ours = inbox.events.filter { $0.memberId.map(members.contains) ?? false }
        #expect(ours.allSatisfy { $0.verified })
        print("webhook relay killed after \(midway ?? 0) of 30 deliveries; delivered twice since: \(ours.count { $0.delivered > 1 })")
    }

    @Test("two relays share an endpoint: one reads it; when it is killed the other takes over, and each member's events still arrive in the stream's order")
    func failover() async throws {
        let stack = try await Self.stack.running()
        let endpoint = TestWebhookEndpoint(stack: stack, events: ["member.created", "member.logged-in", "member.deleted"])
        // Each answer takes 500 ms, so the run of 36 events at 4 at once lasts some 5 s and the kill falls inside it (other
        // suites' events no longer come between on this suite's stack).
        try await stack.setWebhookInbox(endpoint.name, .init(secret: endpoint.secret.text, delayMs: 500))
        let environment = try await Self.processEnvironment(stack, endpoint, concurrency: 4, logLevel: "info")
        // Each member: created and logged in, then deleted; several members at once, so the relay holds several of them.
        // The members first, then the relays: the whole run waits in the consumer, however slow the logins are.
        var members: [Int64] = []
        for _ in 0..<12 {
            let session = try await stack.googleSession()
            members.append(session.memberId)
            #expect(try await stack.deleteAccount(session.accessToken).status == 204)
        }
        let relays = [try await ServiceProcess.start("webhook-relay", environment: environment),
                      try await ServiceProcess.start("webhook-relay", environment: environment)]
        defer { for relay in relays { relay.kill() } }
        let reading = try #require(try await arrival(timeout: .seconds(30)) {
            relays.firstIndex { $0.errorOutput.contains("webhook endpoint reads its consumer") }
        }, "no relay read the endpoint's consumer")
        // The endpoint asks for every member's events: the suite's other tests' members may come between ours.
        let atKill = try #require(try await arrival(timeout: .seconds(90)) {
            let count = try await stack.webhookInbox(endpoint.name).events.count { $0.memberId.map(members.contains) == true }
            return count >= 6 ? count : nil
        })
        #expect(atKill < members.count * 3, "the run was over before the kill")
        relays[reading].kill()
        _ = await relays[reading].waitForExit(timeout: .seconds(10))
        let afterKill = try await stack.webhookInbox(endpoint.name).events.count { $0.memberId.map(members.contains) == true }
        #expect(afterKill < members.count * 3, "the run was over when the relay died: nothing was left to take over")
        let other = relays[1 - reading]

        // The other takes over once the lease went unrenewed 15 s, then waits out the ack wait (30 s) for what the dead
        // one held.
        let inbox = try #require(try await arrival(timeout: .seconds(150)) {
            let inbox = try await stack.webhookInbox(endpoint.name)
            let delivered = inbox.events.filter { $0.delivered >= 1 && $0.memberId.map(members.contains) == true }
            return delivered.count >= members.count * 3 ? inbox : nil
        }, "events were lost: \(other.errorOutput)")
        #expect(other.errorOutput.contains("went silent"), "the other relay did not take over: \(other.errorOutput)")
        // In the order first received: created, logged in, deleted, for every member.
        let order = ["member.created", "member.logged-in", "member.deleted"]
        for member in members {
            let types = inbox.events.filter { $0.memberId == member }.map(\.type)
            #expect(types == order, "member \(member)'s events came as \(types)")
        }
        #expect(inbox.events.allSatisfy { $0.verified })
        let ours = inbox.events.filter { $0.memberId.map(members.contains) == true }
        print("webhook relays: the reading one killed after \(atKill) of \(members.count * 3) events; delivered twice since: \(ours.count { $0.delivered > 1 }) \(ours.filter { $0.delivered > 1 }.map { "\($0.memberId ?? 0) \($0.type) \($0.attempts)" })")
    }
}

/// Looks every 100 ms until `probe` returns something, or `timeout` passes (nil then).
private func arrival<Value>(timeout: Duration, _ probe: () async throws -> Value?) async throws -> Value? {
    try await poll(timeout: timeout, probe, until: { $0 != nil })
}
