import Contracts
import Testing
import TestSupport
@testable import MemberService

/// `MemberStore.link` and `unlink` against the real database.
@Suite("Member store: link and unlink")
struct MemberLinkStoreTests {
    static let fixture = Task { try await MemberStoreFixture.make() }

    @Test("linking fills the member's missing name, keeps its email, and writes identity.linked")
    func linkFillsGaps() async throws {
        let fixture = try await Self.fixture.value
        let member = try await fixture.login(MemberStoreFixture.identity(email: "own@example.com", verified: true)).memberId
        let kakao = MemberStoreFixture.identity(.kakao, email: "kakao@example.com", verified: true, name: "Kakao Name")
        let profile = try await fixture.link(LinkIdentityRequest(memberId: member, accessToken: "store-test", identity: kakao))
        #expect(profile.identities.map(\.provider).sorted { $0.rawValue < $1.rawValue } == [.google, .kakao])
        #expect(profile.email == "own@example.com")
        #expect(profile.name == "Kakao Name")
        #expect(try await fixture.events(member).last == "identity.linked")
        #expect(try await fixture.identityEmail(kakao) == ("kakao@example.com", true))
    }

    @Test("another member's identity, or a second of one provider, is refused; the member's own links again")
    func refusals() async throws {
        let fixture = try await Self.fixture.value
        let other = MemberStoreFixture.identity(.naver)
        _ = try await fixture.login(other)
        let member = try await fixture.login(MemberStoreFixture.identity()).memberId
        let inUse = await failure { _ = try await fixture.link(LinkIdentityRequest(memberId: member, accessToken: "store-test", identity: other)) }
        #expect(inUse == .identityInUse)
        let secondGoogle = await failure {
            _ = try await fixture.link(LinkIdentityRequest(memberId: member, accessToken: "store-test", identity: MemberStoreFixture.identity()))
        }
        #expect(secondGoogle == .providerLinked(.google))

        var kakao = MemberStoreFixture.identity(.kakao, email: "k@example.com", verified: true)
        _ = try await fixture.link(LinkIdentityRequest(memberId: member, accessToken: "store-test", identity: kakao))
        kakao.email = nil
        let again = try await fixture.link(LinkIdentityRequest(memberId: member, accessToken: "store-test", identity: kakao, email: "app@example.com"))
        #expect(again.identities.count == 2)
        // Linked again by login's rule: no token email keeps the stored one and its flag.
        #expect(try await fixture.identityEmail(kakao) == ("k@example.com", true))
    }

    @Test("unlink: not linked, the last identity, and one of two")
    func unlink() async throws {
        let fixture = try await Self.fixture.value
        let member = try await fixture.login(MemberStoreFixture.identity()).memberId
        let notLinked = await failure { _ = try await fixture.store.unlink(UnlinkIdentityRequest(memberId: member, accessToken: "store-test", provider: .apple)) }
        #expect(notLinked == .notLinked(.apple))
        let last = await failure { _ = try await fixture.store.unlink(UnlinkIdentityRequest(memberId: member, accessToken: "store-test", provider: .google)) }
        #expect(last == .lastIdentity)

        _ = try await fixture.link(LinkIdentityRequest(memberId: member, accessToken: "store-test", identity: MemberStoreFixture.identity(.kakao)))
        try await fixture.store.unlink(UnlinkIdentityRequest(memberId: member, accessToken: "store-test", provider: .google))
        let profile = try #require(try await fixture.store.member(member)?.profile)
        #expect(profile.identities.map(\.provider) == [.kakao])
        #expect(try await fixture.events(member).last == "identity.unlinked")
    }

    @Test("a deleted member can neither link nor unlink")
    func deletedMember() async throws {
        let fixture = try await Self.fixture.value
        let member = try await fixture.login(MemberStoreFixture.identity()).memberId
        #expect(try await fixture.store.delete(memberId: member, reason: "requested"))
        let link = await failure {
            _ = try await fixture.link(LinkIdentityRequest(memberId: member, accessToken: "store-test", identity: MemberStoreFixture.identity(.kakao)))
        }
        #expect(link == .memberGone)
        let unlink = await failure { _ = try await fixture.store.unlink(UnlinkIdentityRequest(memberId: member, accessToken: "store-test", provider: .google)) }
        #expect(unlink == .memberGone)
    }
}
