import Contracts
import Foundation
import Testing
import TestSupport

/// Linking is explicit (email never merges accounts): `POST /api/members/me/identities` proves the
/// provider's token and links it to the Bearer's member; `DELETE .../{provider}` unlinks it.
@Suite("Identity linking and unlinking")
struct MemberIdentityLinkingTests {
    @Test("linking a second provider answers the member with both identities and publishes identity.linked")
    func linkSecondProvider() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let appleSub = RunningStack.uniqueSubject("apple")
        let rawNonce = "nonce-\(UUID().uuidString)"
        let token = try await stack.appleToken(sub: appleSub, email: "\(appleSub)@example.com", rawNonce: rawNonce)
        let response = try await stack.link(login.accessToken, LinkIdentityBody(provider: "apple", identityToken: token, rawNonce: rawNonce))
        #expect(response.status == 200, "body: \(response.text)")
        let member = try response.data(MemberResponse.self)
        #expect(member.memberId == login.memberId)
        #expect(Set(member.identities.map(\.provider)) == ["GOOGLE", "APPLE"])
        // The member's email stays the first identity's.
        #expect(member.email?.hasPrefix("user-") == true)

        let event = try await stack.event(Events.identityLinked) { $0.memberId == login.memberId }
        #expect(event?.data.provider == .apple)

        // Signing in with the linked identity now finds the same member.
        let apple = try await stack.appleLogin(sub: appleSub).data(LoginResponse.self)
        #expect(apple.memberId == login.memberId)
        #expect(apple.isExistingMember == true)
    }

    @Test("linking the same identity again to the same member is an idempotent 200")
    func idempotent() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let kakaoSub = RunningStack.uniqueSubject("kakao")
        let body = LinkIdentityBody(provider: "KAKAO", idToken: try await stack.mint("kakao", claims: [
            "sub": .string(kakaoSub), "aud": .string(TestStack.ClientID.kakao)]))
        let first = try await stack.link(login.accessToken, body)
        let second = try await stack.link(login.accessToken, body)
        #expect(first.status == 200 && second.status == 200, "\(first.text) / \(second.text)")
        #expect(try second.data(MemberResponse.self).identities.map(\.provider).sorted() == ["GOOGLE", "KAKAO"])
        #expect(try await stack.count("SELECT count(*)::text FROM member.identities WHERE provider_user_id = \(kakaoSub)") == 1)
    }

    @Test("an identity of another member gets 409 IDENTITY_IN_USE, even with the same email, and changes nothing")
    func identityInUse() async throws {
        let stack = try await TestStack.shared.running()
        let ownerSub = RunningStack.uniqueSubject()
        let owner = try await stack.googleSession(sub: ownerSub)
        let other = try await stack.appleLogin(sub: RunningStack.uniqueSubject("apple"), tokenEmail: "\(ownerSub)@example.com")
            .data(LoginResponse.self)
        #expect(other.memberId != owner.memberId, "email must never merge accounts")

        let response = try await stack.linkGoogle(other.accessToken, sub: ownerSub)
        #expect(response.status == 409, "body: \(response.text)")
        #expect(response.failure?.code == .identityInUse)
        #expect(try await stack.me(owner.accessToken).data(MemberResponse.self).identities.map(\.provider) == ["GOOGLE"])
        #expect(try await stack.me(other.accessToken).data(MemberResponse.self).identities.map(\.provider) == ["APPLE"])
    }

    @Test("a second identity of a provider the member already has gets 409")
    func oneIdentityPerProvider() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let response = try await stack.linkGoogle(login.accessToken, sub: RunningStack.uniqueSubject())
        #expect(response.status == 409)
        #expect(response.failure?.code == .identityInUse)
    }

    @Test("unlinking: 204 and identity.unlinked; 404 when not linked; 409 LAST_IDENTITY for the only one")
    func unlink() async throws {
        let stack = try await TestStack.shared.running()
        let googleSub = RunningStack.uniqueSubject()
        let login = try await stack.googleSession(sub: googleSub)

        let notLinked = try await stack.unlink(login.accessToken, "apple")
        #expect(notLinked.status == 404)
        #expect(notLinked.failure?.code == .notFound)
        let last = try await stack.unlink(login.accessToken, "google")
        #expect(last.status == 409)
        #expect(last.failure?.code == .lastIdentity)

        let appleSub = RunningStack.uniqueSubject("apple")
        let rawNonce = "n-\(UUID().uuidString)"
        let linked = try await stack.link(login.accessToken, LinkIdentityBody(
            provider: "apple", identityToken: try await stack.appleToken(sub: appleSub, rawNonce: rawNonce), rawNonce: rawNonce))
        #expect(linked.status == 200)
        let apple = try await stack.appleLogin(sub: appleSub).data(LoginResponse.self)
        let unlinked = try await stack.unlink(login.accessToken, "Google")
        #expect(unlinked.status == 204, "body: \(unlinked.text)")
        // The Google session ended with the identity (UnlinkSessionTests); the Apple one shows the member.
        #expect(try await stack.me(apple.accessToken).data(MemberResponse.self).identities.map(\.provider) == ["APPLE"])
        let event = try await stack.event(Events.identityUnlinked) { $0.memberId == login.memberId }
        #expect(event?.data.provider == .google)
        #expect(event?.data.reason == "requested")

        // The unlinked Google identity now signs in as a new member.
        let again = try await stack.googleSession(sub: googleSub)
        #expect(again.memberId != login.memberId)
        #expect(again.isExistingMember == false)
    }

    @Test("linking and unlinking need a Bearer token")
    func unauthorized() async throws {
        let stack = try await TestStack.shared.running()
        let link = try await stack.post("/api/members/me/identities", json: LinkIdentityBody(provider: "google", idToken: "x"))
        #expect(link.status == 401)
        let unlink = try await stack.send("DELETE", "/api/members/me/identities/google")
        #expect(unlink.status == 401)
        #expect(unlink.failure?.code == .unauthorized)
    }
}
