import Contracts
import Crypto
import DevIDP
import Foundation
import Testing
import TestSupport

/// An email is verified only when the provider vouched for it: a token's `email_verified` claim
/// about the email in that token, or Naver's profile API. The email the app sends in Apple's
/// first-login body is kept, and shown as unverified, in `GET /api/members/me` and its identities.
@Suite("Email verification")
struct MemberEmailVerificationTests {
    /// The member's email and its flag, and each identity's, read from the JSON as it came, so a
    /// missing field reads as nil and not as a default.
    private struct Shown: Equatable {
        var email: String?
        var emailVerified: Bool?
        var identities: [String: Pair]

        struct Pair: Equatable {
            var email: String?
            var emailVerified: Bool?
        }
    }

    private func shown(_ stack: RunningStack, _ accessToken: String) async throws -> Shown {
        let response = try await stack.me(accessToken)
        #expect(response.status == 200, "body: \(response.text)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let data = try #require(object["data"] as? [String: Any])
        var identities: [String: Shown.Pair] = [:]
        for identity in data["identities"] as? [[String: Any]] ?? [] {
            identities[identity["provider"] as? String ?? ""] = Shown.Pair(email: identity["email"] as? String,
                                                                           emailVerified: identity["emailVerified"] as? Bool)
        }
        return Shown(email: data["email"] as? String, emailVerified: data["emailVerified"] as? Bool, identities: identities)
    }

    @Test("the email the app sends on Apple's first login is kept with emailVerified false, on the member and its identity")
    func appEmailIsUnverified() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let appEmail = "app-\(sub)@example.com"
        let login = try await stack.appleLogin(sub: sub, appEmail: appEmail).data(LoginResponse.self)

        let expected = Shown(email: appEmail, emailVerified: false, identities: ["APPLE": .init(email: appEmail, emailVerified: false)])
        #expect(try await shown(stack, login.accessToken) == expected)
        // Later logins without an email in the token leave it unverified.
        _ = try await stack.appleLogin(sub: sub).data(LoginResponse.self)
        #expect(try await shown(stack, login.accessToken) == expected)
    }

    @Test("a token that says email_verified but carries no email does not verify the app's email")
    func verifiedClaimWithoutEmail() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let appEmail = "app-\(sub)@example.com"
        let rawNonce = "nonce-\(UUID().uuidString)"
        let token = try await stack.mint("apple", claims: [
            "sub": .string(sub), "aud": .string(TestStack.ClientID.apple), "email_verified": .string("true"),
            "nonce": .string(Digest.sha256Hex(rawNonce)),
        ])
        let login = try await stack.post("/api/auth/apple-login", json: AppleLoginBody(
            identityToken: token, deviceId: "d", rawNonce: rawNonce, email: appEmail)).data(LoginResponse.self)
        #expect(try await shown(stack, login.accessToken)
            == Shown(email: appEmail, emailVerified: false, identities: ["APPLE": .init(email: appEmail, emailVerified: false)]))
    }

    @Test("a later token's vouched email replaces the app's and is verified")
    func tokenEmailVerifiesLater() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let login = try await stack.appleLogin(sub: sub, appEmail: "app-\(sub)@example.com").data(LoginResponse.self)
        _ = try await stack.appleLogin(sub: sub, tokenEmail: "token-\(sub)@example.com").data(LoginResponse.self)
        let email = "token-\(sub)@example.com"
        #expect(try await shown(stack, login.accessToken)
            == Shown(email: email, emailVerified: true, identities: ["APPLE": .init(email: email, emailVerified: true)]))
    }

    @Test("emails the providers vouch for are verified: Google's and Kakao's claims, Naver's profile API; an unverified claim is not")
    func providerEmails() async throws {
        let stack = try await TestStack.shared.running()
        let googleSub = RunningStack.uniqueSubject()
        let google = try await stack.googleSession(sub: googleSub)
        let googleEmail = "\(googleSub)@example.com"
        #expect(try await shown(stack, google.accessToken)
            == Shown(email: googleEmail, emailVerified: true, identities: ["GOOGLE": .init(email: googleEmail, emailVerified: true)]))

        let naverId = RunningStack.uniqueSubject("naver")
        let naverToken = await stack.naverToken(NaverAccount(id: naverId, email: "\(naverId)@example.com"))
        let naver = try await stack.post("/api/auth/naver-login", json: NaverLoginBody(accessToken: naverToken, deviceId: "d"))
            .data(LoginResponse.self)
        #expect(try await shown(stack, naver.accessToken).emailVerified == true)

        let kakaoSub = RunningStack.uniqueSubject("kakao")
        let kakaoToken = try await stack.idToken("kakao", sub: kakaoSub, claims: ["email_verified": .bool(false)])
        let kakao = try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: kakaoToken, deviceId: "d"))
            .data(LoginResponse.self)
        let kakaoEmail = "\(kakaoSub)@example.com"
        #expect(try await shown(stack, kakao.accessToken)
            == Shown(email: kakaoEmail, emailVerified: false, identities: ["KAKAO": .init(email: kakaoEmail, emailVerified: false)]))
    }

    @Test("linking Apple with an app-sent email neither verifies it nor shows it as verified")
    func linkedAppEmail() async throws {
        let stack = try await TestStack.shared.running()
        let kakaoSub = RunningStack.uniqueSubject("kakao")
        // A member without an email: the linked identity's fills the gap, unverified.
        let kakaoToken = try await stack.mint("kakao", claims: ["sub": .string(kakaoSub), "aud": .string(TestStack.ClientID.kakao)])
        let login = try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: kakaoToken, deviceId: "d"))
            .data(LoginResponse.self)
        let appleSub = RunningStack.uniqueSubject("apple")
        let rawNonce = "nonce-\(UUID().uuidString)"
        let appEmail = "app-\(appleSub)@example.com"
        let linked = try await stack.link(login.accessToken, LinkIdentityBody(
            provider: "apple", identityToken: try await stack.appleToken(sub: appleSub, rawNonce: rawNonce), rawNonce: rawNonce,
            email: appEmail))
        #expect(linked.status == 200, "body: \(linked.text)")
        let shown = try await shown(stack, login.accessToken)
        #expect(shown.email == appEmail)
        #expect(shown.emailVerified == false)
        #expect(shown.identities["APPLE"] == .init(email: appEmail, emailVerified: false))
    }
}
