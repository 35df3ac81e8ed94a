import Contracts
import Testing
@testable import MemberService

/// `MemberStore.login` against the real database: find or create, its events, and which email and
/// name an identity and its member keep (SQL/functions.sql).
@Suite("Member store: login and precedence")
struct MemberLoginStoreTests {
    static let fixture = Task { try await MemberStoreFixture.make() }

    @Test("a first login creates the member, the next finds it; each writes its events")
    func createsThenFinds() async throws {
        let fixture = try await Self.fixture.value
        let identity = MemberStoreFixture.identity(email: "a@example.com", verified: true)
        let first = try await fixture.login(identity)
        let second = try await fixture.login(identity)
        #expect(!first.isExistingMember)
        #expect(second.isExistingMember)
        #expect(second.memberId == first.memberId)
        #expect(try await fixture.events(first.memberId) == ["member.created", "member.logged-in", "member.logged-in"])
    }

    @Test("concurrent first logins of one identity create one member")
    func concurrentFirstLogins() async throws {
        let fixture = try await Self.fixture.value
        let identity = MemberStoreFixture.identity()
        let replies = try await withThrowingTaskGroup(of: MemberLoginReply.self) { group in
            for _ in 0..<8 { group.addTask { try await fixture.login(identity) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(replies.map(\.memberId)).count == 1)
        #expect(replies.filter { !$0.isExistingMember }.count == 1)
    }

    @Test("the token's email with its flag; without one the stored email keeps its flag; the app's only when none, unverified")
    func identityEmail() async throws {
        let fixture = try await Self.fixture.value
        var identity = MemberStoreFixture.identity(email: "first@example.com", verified: true)
        let member = try await fixture.login(identity).memberId

        identity.email = nil
        _ = try await fixture.login(identity, appEmail: "app@example.com")
        #expect(try await fixture.identityEmail(identity) == ("first@example.com", true))

        identity.email = "second@example.com"
        identity.emailVerified = false
        _ = try await fixture.login(identity)
        #expect(try await fixture.identityEmail(identity) == ("second@example.com", false))
        // The member's email came from this identity, so it follows it.
        #expect(try await fixture.profile(member).email == "second@example.com")

        let apple = MemberStoreFixture.identity(.apple)
        let appleMember = try await fixture.login(apple, appEmail: "relay@privaterelay.example").memberId
        #expect(try await fixture.identityEmail(apple) == ("relay@privaterelay.example", false))
        #expect(try await fixture.profile(appleMember).emailVerified == false)
    }

    @Test("the token's name, else the app's, else the stored one")
    func identityName() async throws {
        let fixture = try await Self.fixture.value
        var identity = MemberStoreFixture.identity(.apple)
        let member = try await fixture.login(identity, appName: "From App").memberId
        #expect(try await fixture.profile(member).name == "From App")
        identity.name = "From Token"
        _ = try await fixture.login(identity, appName: "Ignored")
        #expect(try await fixture.profile(member).name == "From Token")
        identity.name = nil
        _ = try await fixture.login(identity)
        #expect(try await fixture.profile(member).name == "From Token")
    }

    @Test("a member's email from another identity stays when this one's changes")
    func memberEmailFromElsewhereStays() async throws {
        let fixture = try await Self.fixture.value
        let google = MemberStoreFixture.identity(email: "google@example.com", verified: true)
        let member = try await fixture.login(google).memberId
        var kakao = MemberStoreFixture.identity(.kakao, email: "kakao@example.com", verified: true)
        _ = try await fixture.link(LinkIdentityRequest(memberId: member, accessToken: "store-test", identity: kakao))
        kakao.email = "kakao-new@example.com"
        _ = try await fixture.login(kakao)
        let profile = try await fixture.profile(member)
        #expect(profile.email == "google@example.com")
        #expect(profile.identities.first { $0.provider == .kakao }?.email == "kakao-new@example.com")
    }
}
