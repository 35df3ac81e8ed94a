import Contracts
import Foundation
import Testing
import TestSupport
@testable import MemberService

/// A login's resend (the gateway's, after a lost answer: the same `attemptKey` and device) against the real
/// database: while its first attempt is uncommitted, after its window, after a suspension (SQL/functions.sql,
/// Rule (a login's attempts are one login)). The plain cases: `MemberRepositoryContractTests`.
@Suite("Member store: a login's resend")
struct MemberLoginAttemptStoreTests {
    static let fixture = Task { try await MemberStoreFixture.make() }

    static func attempt(_ identity: VerifiedIdentity) -> MemberLoginRequest {
        MemberLoginRequest(identity: identity, deviceId: "store-test", attemptKey: UUID().uuidString)
    }

    @Test("a resend that comes while the first attempt is uncommitted waits for it, then answers as it did: a new member")
    func resendWaitsForFirstAttempt() async throws {
        let fixture = try await Self.fixture.value
        let identity = MemberStoreFixture.identity()
        let request = Self.attempt(identity)
        let (member, resend) = try await fixture.database.withTransaction { connection in
            // The first attempt, held uncommitted: its identity row is not yet visible to the resend.
            let first = try #require(try await connection.query("""
                SELECT member_id, created FROM member.login(
                    p_provider => \(identity.provider.rawValue), p_subject => \(identity.subject), p_email => NULL,
                    p_email_verified => NULL, p_private_email => NULL, p_name => NULL, p_app_email => NULL, p_app_name => NULL,
                    p_sealed_credential => NULL, p_timezone => NULL, p_locale => NULL,
                    p_device_id => \(request.deviceId), p_attempt_key => \(request.attemptKey))
                """).first)
            #expect(try first.bool("created"))
            let resend = Task { try await fixture.store.login(request) }
            // Committed once the resend's identity insert waits for this transaction.
            try await waitUntil(timeout: .seconds(15), poll: .milliseconds(10), "the resend never waited for the first attempt") {
                try await lockWaiters(on: connection) == 1
            }
            return (try first.int("member_id"), resend)
        }
        #expect(try await resend.value == MemberLoginReply(memberId: member, isExistingMember: false))
        #expect(try await fixture.events(member) == ["member.created", "member.logged-in"])
        #expect(try await fixture.database.query("SELECT count(*) AS n FROM member.identities WHERE provider_user_id = \(identity.subject)")
            .first?.int("n") == 1)
    }

    @Test("a resend after two minutes is a login of an existing member, with its event")
    func resendAfterWindow() async throws {
        let fixture = try await Self.fixture.value
        let identity = MemberStoreFixture.identity()
        let request = Self.attempt(identity)
        let first = try await fixture.store.login(request)
        _ = try await fixture.database.query("""
            UPDATE member.identities SET last_login_at = now() - interval '121 seconds' WHERE provider_user_id = \(identity.subject)
            """)
        #expect(try await fixture.store.login(request) == MemberLoginReply(memberId: first.memberId, isExistingMember: true))
        #expect(try await fixture.events(first.memberId) == ["member.created", "member.logged-in", "member.logged-in"])
    }

    @Test("a resend after the member was suspended is refused, with no event")
    func resendAfterSuspension() async throws {
        let fixture = try await Self.fixture.value
        let request = Self.attempt(MemberStoreFixture.identity())
        let member = try await fixture.store.login(request).memberId
        _ = try await fixture.store.setSuspension(memberId: member, suspended: true, admin: "ops-kim", reason: "fraud report")
        let written = try await fixture.events(member)
        #expect(await failure { _ = try await fixture.store.login(request) } == ServiceFailure.memberSuspended)
        #expect(try await fixture.events(member) == written)
    }
}
