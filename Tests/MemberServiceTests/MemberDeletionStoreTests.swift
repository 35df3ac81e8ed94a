import Contracts
import Foundation
import JSON
import Testing
import TestSupport
@testable import MemberService

/// `MemberStore.delete` and the Apple notifications against the real database.
@Suite("Member store: deletion and Apple notifications")
struct MemberDeletionStoreTests {
    static let fixture = Task { try await MemberStoreFixture.make() }

    @Test("deletion removes the member and its identities and names the grants to revoke; a second is a no-op")
    func deletion() async throws {
        let fixture = try await Self.fixture.value
        let google = MemberStoreFixture.identity(sealed: "sealed-google")
        let member = try await fixture.login(google).memberId
        _ = try await fixture.link(LinkIdentityRequest(memberId: member, accessToken: "store-test", identity: MemberStoreFixture.identity(.kakao)))
        #expect(try await fixture.store.delete(memberId: member, reason: "requested"))
        #expect(try await fixture.store.member(member)?.profile == nil)
        #expect(try await fixture.database.query("SELECT 1 FROM member.identities WHERE member_id = \(member)").isEmpty)
        let data = try #require(try await fixture.database.query("""
            SELECT convert_from(data, 'UTF8') AS data FROM member.outbox
             WHERE event_type = 'member.deleted' AND convert_from(data, 'UTF8')::jsonb ->> 'memberId' = \(String(member))
            """).first?.string("data"))
        let event = try MessageCoding.decode(MemberDeleted.self, from: Array(data.utf8))
        // Only the identity with a sealed credential has a grant to revoke.
        #expect(event.grants == [ProviderGrant(provider: .google, subject: google.subject, sealedCredential: "sealed-google")])
        #expect(try await !fixture.store.delete(memberId: member, reason: "requested"))
    }

    @Test("consent-revoked ends the Apple identity once; a replay answers the first outcome and changes nothing")
    func consentRevoked() async throws {
        let fixture = try await Self.fixture.value
        let apple = MemberStoreFixture.identity(.apple)
        let member = try await fixture.login(apple).memberId
        _ = try await fixture.link(LinkIdentityRequest(memberId: member, accessToken: "store-test", identity: MemberStoreFixture.identity()))
        let notification = AppleNotification(type: "consent-revoked", subject: apple.subject, eventTime: Date().addingTimeInterval(5),
                                             jti: UUID().uuidString, issuedAt: Date())
        let first = try await fixture.store.handle(notification)
        #expect(first == AppleNotificationOutcome(memberId: member, identityEnded: true, memberDeleted: false))
        #expect(try await fixture.profile(member).identities.map(\.provider) == [.google])
        let eventsBefore = try await fixture.events(member)
        #expect(try await fixture.store.handle(notification) == first)
        #expect(try await fixture.events(member).filter { $0 == "identity.unlinked" }.count
            == eventsBefore.filter { $0 == "identity.unlinked" }.count)
    }

    @Test("account-delete of a member's only identity deletes the member without the Apple grant")
    func accountDelete() async throws {
        let fixture = try await Self.fixture.value
        let apple = MemberStoreFixture.identity(.apple, sealed: "sealed-apple")
        let member = try await fixture.login(apple).memberId
        let outcome = try await fixture.store.handle(AppleNotification(
            type: "account-delete", subject: apple.subject, eventTime: Date().addingTimeInterval(5), jti: UUID().uuidString, issuedAt: Date()))
        #expect(outcome == AppleNotificationOutcome(memberId: member, identityEnded: true, memberDeleted: true))
        #expect(try await fixture.store.member(member)?.profile == nil)
        let grants = try await fixture.database.query("""
            SELECT convert_from(data, 'UTF8')::jsonb -> 'grants' AS grants FROM member.outbox
             WHERE event_type = 'member.deleted' AND convert_from(data, 'UTF8')::jsonb ->> 'memberId' = \(String(member))
            """)
        #expect(try grants.first?.string("grants") == "[]")
    }

    @Test("an event from before the identity was linked changes nothing; email-disabled sets the flag")
    func eventTimes() async throws {
        let fixture = try await Self.fixture.value
        let apple = MemberStoreFixture.identity(.apple, email: "a@privaterelay.example", verified: true)
        let member = try await fixture.login(apple).memberId
        let early = try await fixture.store.handle(AppleNotification(
            type: "consent-revoked", subject: apple.subject, eventTime: Date().addingTimeInterval(-3_600), jti: UUID().uuidString,
            issuedAt: Date()))
        #expect(early.memberId == nil)
        #expect(try await fixture.profile(member).identities.count == 1)

        _ = try await fixture.store.handle(AppleNotification(
            type: "email-disabled", subject: apple.subject, email: "b@privaterelay.example", eventTime: Date().addingTimeInterval(5),
            jti: UUID().uuidString, issuedAt: Date()))
        let row = try #require(try await fixture.database.query(
            "SELECT email, email_verified, email_disabled FROM member.identities WHERE provider_user_id = \(apple.subject)").first)
        #expect(try row.bool("email_disabled"))
        // Apple's notification does not vouch for a new address.
        #expect(try row.string("email") == "b@privaterelay.example")
        #expect(try !row.bool("email_verified"))
    }

    @Test("a notification older than Apple's may be is refused")
    func tooOld() async throws {
        let fixture = try await Self.fixture.value
        let old = Date().addingTimeInterval(-(MemberStore.handledNotificationRetention.timeInterval + 60))
        let refused = await failure {
            _ = try await fixture.store.handle(AppleNotification(type: "consent-revoked", subject: "nobody", jti: UUID().uuidString,
                                                                 issuedAt: old))
        }
        #expect(refused?.code == .invalidRequest)
    }
}
