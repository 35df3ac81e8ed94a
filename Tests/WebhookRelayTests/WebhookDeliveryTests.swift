import Contracts
import Foundation
import JSON
import Testing
import WebhookRelay
import Webhooks

/// What one delivery sends and what an answer means.
@Suite("Webhook delivery rules")
struct WebhookDeliveryTests {
    @Test("the body is the event's envelope and public data, its ID the webhook-id, its member the ordering key")
    func prepared() throws {
        let event = EventEnvelope(Events.memberCreated, MemberCreated(memberId: 42, provider: .apple))
        let payload = try MessageCoding.encode(event)
        let prepared = try #require(WebhookDelivery.prepare(payload: payload))
        #expect(prepared.id == event.id)
        #expect(prepared.type == "member.created")
        #expect(try MessageCoding.decode(JSONValue.self, from: prepared.body) == MessageCoding.decode(JSONValue.self, from: payload),
                "member.created goes out whole")
        #expect(WebhookDelivery.memberKey(payload: payload) == "42")
        let notice = try MessageCoding.encode(EventEnvelope(Events.appleNotification,
                                                            AppleNotificationReceived(type: "email-disabled", subject: "s", memberId: nil)))
        #expect(WebhookDelivery.memberKey(payload: notice) == nil)
        #expect(WebhookDelivery.prepare(payload: Array("not json".utf8)) == nil)
    }

    @Test("member.deleted goes out without the sealed provider grants and the admin's name and reason")
    func grantsLeftOut() throws {
        let grant = ProviderGrant(provider: .apple, subject: "001.apple", sealedCredential: "sealed-apple-refresh-token")
        let event = EventEnvelope(Events.memberDeleted, MemberDeleted(memberId: 7, grants: [grant], reason: "admin",
                                                                     actor: AdminActor(admin: "alice", reason: "fraud ring 12")))
        let prepared = try #require(WebhookDelivery.prepare(payload: try MessageCoding.encode(event)))
        let text = String(decoding: prepared.body, as: UTF8.self)
        #expect(!text.contains("sealed-apple-refresh-token") && !text.contains("grants") && !text.contains("alice")
                && !text.contains("fraud"), "\(text)")
        let decoded = try MessageCoding.decode(JSONValue.self, from: prepared.body)
        guard case .object(let fields) = decoded, case .object(let data)? = fields["data"] else {
            Issue.record("not an event: \(text)")
            return
        }
        #expect(fields["id"] == .string(event.id) && fields["type"] == .string("member.deleted"))
        #expect(data["memberId"] == .integer(7) && data["reason"] == .string("admin"))
    }

    @Test("a login goes out without the client's address; every type of the stream has a public form")
    func allowList() throws {
        let login = EventEnvelope(Events.memberLoggedIn, MemberLoggedIn(memberId: 3, provider: .google, isExistingMember: true,
                                                                        deviceId: "iphone", clientAddress: "203.0.113.9",
                                                                        platform: "iOS 18.1", appVersion: "App 2.0"))
        let text = String(decoding: try #require(WebhookDelivery.prepare(payload: try MessageCoding.encode(login))).body, as: UTF8.self)
        #expect(!text.contains("203.0.113.9") && text.contains("iphone") && text.contains("iOS 18.1"), "\(text)")
        #expect(Set(WebhookDelivery.publicFields.keys) == Set(Events.typeNames))
        let unknown = Array(#"{"v":1,"id":"x","type":"member.exploded","occurredAt":"2026-01-01T00:00:00Z","data":{"memberId":1}}"#.utf8)
        #expect(WebhookDelivery.prepare(payload: unknown) == nil, "a type without a public form is not sent")
    }

    @Test("2xx is delivered, 410 disables, anything else is retried", arguments: [
        (200, WebhookDelivery.Verdict.delivered), (204, .delivered), (299, .delivered), (410, .gone),
        (301, .failed), (302, .failed), (400, .failed), (404, .failed), (429, .failed), (500, .failed), (503, .failed), (100, .failed),
    ])
    func verdicts(_ status: Int, _ verdict: WebhookDelivery.Verdict) {
        #expect(WebhookDelivery.verdict(status: status) == verdict)
    }

    @Test("the retries wait longer each time, with jitter, up to 5 minutes, and end when the stream would drop the event")
    func retries() {
        let backoff = WebhookDelivery.backoff
        #expect(backoff.ceiling(afterFailures: 1) == .seconds(1))
        #expect(backoff.ceiling(afterFailures: 4) == .seconds(8))
        #expect(backoff.ceiling(afterFailures: 30) == .seconds(300))
        #expect(backoff.delay(afterFailures: 3, draw: { $0.lowerBound }) == .seconds(2))
        let stored = Date(timeIntervalSince1970: 1_000_000)
        #expect(!WebhookDelivery.isExpired(storedAt: stored, maxAge: .seconds(86_400), now: stored.addingTimeInterval(86_399)))
        #expect(WebhookDelivery.isExpired(storedAt: stored, maxAge: .seconds(86_400), now: stored.addingTimeInterval(86_400)))
    }

    @Test("the headers of an attempt: JSON, the event's ID, the time, and the signature over them")
    func headers() throws {
        let secret = WebhookSecret(key: Array(repeating: 9, count: 32))
        let prepared = try #require(WebhookDelivery.prepare(payload: try MessageCoding.encode(
            EventEnvelope(Events.memberCreated, MemberCreated(memberId: 1, provider: .google)))))
        let headers = Dictionary(uniqueKeysWithValues: WebhookDelivery.headers(prepared, timestamp: 1_700_000_000, secret: secret))
        #expect(headers["Content-Type"] == "application/json")
        #expect(headers["webhook-id"] == prepared.id)
        #expect(headers["webhook-timestamp"] == "1700000000")
        #expect(WebhookSignature.verify(id: prepared.id, timestamp: "1700000000", signatures: headers["webhook-signature"] ?? "",
                                        body: prepared.body, secret: secret, now: Date(timeIntervalSince1970: 1_700_000_000)))
    }
}
