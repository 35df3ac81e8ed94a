import Contracts
import Foundation
import JSON
import Messaging
import Testing
@testable import AdminAPI

@Suite("Events into audit records")
struct AuditEventsTests {
    static func event<T: Codable & Sendable>(_ type: EventType<T>, _ data: T) throws -> EventBatchConsumer.Event {
        EventBatchConsumer.Event(subject: type.subject, payload: try MessageCoding.encode(EventEnvelope(type, data)))
    }

    @Test("a login keeps its provider, device, address, platform, app version and whether the member is new")
    func login() throws {
        let event = try Self.event(Events.memberLoggedIn, MemberLoggedIn(memberId: 7, provider: .google, isExistingMember: false, deviceId: "ipad-1",
                                                                          clientAddress: "203.0.113.9", platform: "iPadOS 17", appVersion: "App 2.1"))
        let record = try #require(AuditEvents.record(subject: event.subject, payload: event.payload))
        #expect(record.kind == "member.logged-in")
        #expect(record.memberId == 7)
        #expect(record.details == ["provider": .string("GOOGLE"), "isNew": .bool(true), "deviceId": .string("ipad-1"),
                                   "clientAddress": .string("203.0.113.9"), "platform": .string("iPadOS 17"), "appVersion": .string("App 2.1")])
        // The keys the store drops after a deletion (AuditStoreTests.scrub) are exactly the personal ones here.
        #expect(Set(record.details.keys).subtracting(AuditRecord.personalDetails) == ["provider", "isNew"])
    }

    @Test("a deletion keeps its reason and admin, never the sealed grants; it erases the member")
    func deletion() throws {
        let event = try Self.event(Events.memberDeleted, MemberDeleted(
            memberId: 9, grants: [ProviderGrant(provider: .apple, subject: "001.apple", sealedCredential: "SEALED")], reason: "admin",
            actor: AdminActor(admin: "alice", reason: "asked by email")))
        let record = try #require(AuditEvents.record(subject: event.subject, payload: event.payload))
        #expect(record.admin == "alice")
        #expect(record.reason == "asked by email")
        #expect(record.details == ["reason": .string("admin")])
        #expect(AuditEvents.erasedMember(record) == 9)
        let batch = AuditEventsConsumer.batch([event], logger: .init(label: "test", level: .critical))
        #expect(batch.erasedMembers == [9])
    }

    @Test("profile changes by field names; Apple notifications by type, not subject; suspensions with admin and reason")
    func others() throws {
        let updated = try Self.event(Events.memberUpdated, MemberUpdated(memberId: 1, fields: ["email", "name"], source: "login"))
        #expect(AuditEvents.record(subject: updated.subject, payload: updated.payload)?.details
                == ["fields": .array([.string("email"), .string("name")]), "source": .string("login")])
        let apple = try Self.event(Events.appleNotification, AppleNotificationReceived(type: "consent-revoked", subject: "001.secret", memberId: 2))
        let appleRecord = try #require(AuditEvents.record(subject: apple.subject, payload: apple.payload))
        #expect(appleRecord.details == ["type": .string("consent-revoked")])
        #expect(appleRecord.memberId == 2)
        let suspended = try Self.event(Events.memberSuspended, MemberSuspended(memberId: 3, admin: "bob", reason: "fraud", generation: 1))
        let suspension = try #require(AuditEvents.record(subject: suspended.subject, payload: suspended.payload))
        #expect(suspension.admin == "bob" && suspension.reason == "fraud" && suspension.kind == "member.suspended")
        let ended = try Self.event(Events.sessionEnded, SessionEnded(sessionId: "s-1", memberId: 3, reason: "logout"))
        #expect(AuditEvents.record(subject: ended.subject, payload: ended.payload)?.details
                == ["sessionId": .string("s-1"), "reason": .string("logout")])
    }

    @Test("an unreadable event is left out of the batch; an unknown kind keeps its name and time only")
    func unreadable() throws {
        let garbage = EventBatchConsumer.Event(subject: "events.member.logged-in", payload: Array("{nope".utf8))
        #expect(AuditEvents.record(subject: garbage.subject, payload: garbage.payload) == nil)
        let unknown = EventBatchConsumer.Event(subject: "events.thing.happened", payload: Array(#"{"v":1,"id":"e-1","type":"thing.happened","occurredAt":"2026-01-01T00:00:00Z","data":{"email":"x@example.com"}}"#.utf8))
        let record = try #require(AuditEvents.record(subject: unknown.subject, payload: unknown.payload))
        #expect(record.kind == "thing.happened" && record.details.isEmpty && record.eventId == "e-1")
        #expect(AuditEventsConsumer.batch([garbage, unknown], logger: .init(label: "test", level: .critical)).records.count == 1)
    }
}
