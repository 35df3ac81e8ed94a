import Contracts
import Foundation
import JSON
import Testing
import TestSupport
@testable import MemberService

/// A suspension, the refusals it brings and the admin's traces in the events, against the real database
/// (SQL/functions.sql, MemberStore+Admin.swift).
@Suite("Member store: suspensions and what the events record")
struct MemberSuspensionStoreTests {
    static let fixture = Task { try await MemberStoreFixture.make() }

    /// The payload of the member's last event of `type`.
    private static func event<Payload: Decodable>(_ type: EventType<Payload>, of memberId: Int64,
                                                  in fixture: MemberStoreFixture) async throws -> Payload {
        let data = try #require(try await fixture.database.query("""
            SELECT convert_from(data, 'UTF8') AS data FROM member.outbox
             WHERE event_type = \(type.name) AND convert_from(data, 'UTF8')::jsonb ->> 'memberId' = \(String(memberId))
             ORDER BY id DESC LIMIT 1
            """).first?.string("data"))
        return try MessageCoding.decode(Payload.self, from: Array(data.utf8))
    }

    @Test("a suspended member's login is refused MEMBER_SUSPENDED by member.login, which writes no event and changes no row")
    func suspendedLoginWritesNothing() async throws {
        let fixture = try await Self.fixture.value
        var identity = MemberStoreFixture.identity(email: "a@example.com", verified: true, name: "A")
        let member = try await fixture.login(identity).memberId
        _ = try #require(try await fixture.store.setSuspension(memberId: member, suspended: true, admin: "ops", reason: "fraud"))
        let lastLogin = try await fixture.database.query(
            "SELECT last_login_at FROM member.identities WHERE provider_user_id = \(identity.subject)").first?.date("last_login_at")
        identity.name = "B"
        identity.email = "b@example.com"
        let refused = await failure { _ = try await fixture.login(identity) }
        #expect(refused == ServiceFailure.memberSuspended)
        #expect(try await fixture.events(member) == ["member.created", "member.logged-in", "member.suspended"])
        #expect(try await fixture.database.query(
            "SELECT last_login_at FROM member.identities WHERE provider_user_id = \(identity.subject)").first?.date("last_login_at") == lastLogin)
        #expect(try await fixture.identityEmail(identity) == ("a@example.com", true))
        #expect(try await fixture.profile(member).name == "A")

        _ = try await fixture.store.setSuspension(memberId: member, suspended: false, admin: "ops", reason: "cleared")
        #expect(try await fixture.login(identity).memberId == member)
        #expect(try await fixture.profile(member).name == "B")
    }

    @Test("member.logged-in carries the login's device and client; an older replica's call, without them, still logs in")
    func loginEventCarriesClient() async throws {
        let fixture = try await Self.fixture.value
        let identity = MemberStoreFixture.identity()
        let client = ClientContext(address: "203.0.113.7", platform: "iOS 18.1", appVersion: "MyApp 2.3.1")
        let member = try await fixture.store.login(MemberLoginRequest(identity: identity, deviceId: "device-1", client: client)).memberId
        #expect(try await Self.event(Events.memberLoggedIn, of: member, in: fixture)
            == MemberLoggedIn(memberId: member, provider: .google, isExistingMember: false, deviceId: "device-1",
                              clientAddress: "203.0.113.7", platform: "iOS 18.1", appVersion: "MyApp 2.3.1"))
        // The call of the release before names none of the new arguments.
        let rows = try await fixture.database.query("""
            SELECT member_id, created FROM member.login(
                p_provider => 'GOOGLE', p_subject => \(identity.subject), p_email => NULL, p_email_verified => NULL,
                p_private_email => NULL, p_name => NULL, p_app_email => NULL, p_app_name => NULL, p_sealed_credential => NULL,
                p_timezone => NULL, p_locale => NULL, p_picture => NULL)
            """)
        #expect(try rows.first?.int("member_id") == member)
        #expect(try await Self.event(Events.memberLoggedIn, of: member, in: fixture)
            == MemberLoggedIn(memberId: member, provider: .google, isExistingMember: true))
    }

    @Test("member.suspended and member.unsuspended name the admin, the reason and the generation; member.deleted its admin")
    func eventsNameTheAdmin() async throws {
        let fixture = try await Self.fixture.value
        let member = try await fixture.login(MemberStoreFixture.identity()).memberId
        _ = try await fixture.store.setSuspension(memberId: member, suspended: true, admin: "ops-kim", reason: "fraud report")
        #expect(try await Self.event(Events.memberSuspended, of: member, in: fixture)
            == MemberSuspended(memberId: member, admin: "ops-kim", reason: "fraud report", generation: 1))
        _ = try await fixture.store.setSuspension(memberId: member, suspended: false, admin: "ops-lee", reason: "appeal")
        #expect(try await Self.event(Events.memberUnsuspended, of: member, in: fixture)
            == MemberUnsuspended(memberId: member, admin: "ops-lee", reason: "appeal", generation: 2))
        let actor = AdminActor(admin: "ops-kim", reason: "asked by email")
        #expect(try await fixture.store.delete(memberId: member, reason: "admin", actor: actor))
        let deleted = try await Self.event(Events.memberDeleted, of: member, in: fixture)
        #expect(deleted.reason == "admin" && deleted.actor == actor)
    }

    @Test("a login waiting on its identity while a suspension commits is refused, with no event")
    func loginWaitingOnSuspension() async throws {
        let fixture = try await Self.fixture.value
        let identity = MemberStoreFixture.identity()
        let member = try await fixture.login(identity).memberId
        let written = try await fixture.events(member)
        // A suspension's transaction, held open with the member's row and identities locked as the store locks them.
        let login = try await fixture.database.withTransaction { connection in
            _ = try await connection.query("SELECT 1 FROM member.members WHERE id = \(member) FOR UPDATE")
            _ = try await connection.query("SELECT 1 FROM member.identities WHERE member_id = \(member) FOR UPDATE")
            let login = Task { await failure { _ = try await fixture.login(identity) } }
            // Suspended and committed once the login waits for this transaction's lock on its identity.
            try await waitUntil(timeout: .seconds(15), poll: .milliseconds(10), "the login never waited for the identity's lock") {
                try await lockWaiters(on: connection) == 1
            }
            _ = try await connection.query("UPDATE member.members SET suspended_at = now(), suspension_generation = 1 WHERE id = \(member)")
            return login
        }
        #expect(await login.value == ServiceFailure.memberSuspended)
        #expect(try await fixture.events(member) == written)
    }
}
