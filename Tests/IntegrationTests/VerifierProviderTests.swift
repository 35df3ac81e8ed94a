import Contracts
import Crypto
import DevIDP
import Foundation
import JOSE
import JSON
import Testing
import TestSupport

/// Kakao, Apple and Naver logins end to end, with each provider's own rules.
@Suite("Verifier providers: Kakao, Apple, Naver")
struct VerifierProviderTests {
    private func appleLogin(_ stack: RunningStack, _ token: String, code: String? = nil, rawNonce: String? = nil) async throws -> APIResponse {
        try await stack.post("/api/auth/apple-login", json: AppleLoginBody(identityToken: token, deviceId: "device-1",
                                                                           authorizationCode: code, rawNonce: rawNonce))
    }

    private func naverLogin(_ stack: RunningStack, _ token: String) async throws -> APIResponse {
        try await stack.post("/api/auth/naver-login", json: NaverLoginBody(accessToken: token, deviceId: "device-1"))
    }

    @Test("Kakao logs in through the generic OIDC path, with its raw nonce")
    func kakao() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("kakao")
        let token = try await stack.idToken("kakao", sub: sub, claims: ["nonce": .string("kakao-raw-nonce")])
        let first = try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: token, deviceId: "d", nonce: "kakao-raw-nonce"))
        #expect(first.status == 200, "body: \(first.text)")
        #expect(try first.data(LoginResponse.self).isExistingMember == false)
        let wrong = try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: token, deviceId: "d", nonce: "other"))
        #expect(wrong.status == 401)
        #expect(wrong.failure?.code == .nonceMismatch)
        // Under a Kakao kid, so that the check spends nothing of Kakao's unknown-kid refetch budget.
        let kakaoKid = try #require(await stack.idp.signingJWK("kakao")?.kid)
        let googleToken = try await stack.idToken("google", sub: sub, claims: ["aud": .string(TestStack.ClientID.kakao)],
                                                  header: ["kid": .string(kakaoKid)])
        let crossed = try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: googleToken, deviceId: "d"))
        #expect(crossed.failure?.code == .invalidProviderToken, "a Google token is not a Kakao token")
    }

    @Test("Apple: bundle ID or Services ID as audience, nonce = SHA-256 hex of rawNonce, string or boolean flags")
    func appleIdentityToken() async throws {
        let stack = try await TestStack.shared.running()
        let rawNonce = "raw-\(UUID().uuidString)"
        for (audience, flag) in [(TestStack.ClientID.apple, JSONValue.string("true")), (TestStack.ClientID.appleServices, .bool(true))] {
            let sub = RunningStack.uniqueSubject("apple")
            let token = try await stack.idToken("apple", sub: sub, claims: [
                "aud": .string(audience), "nonce": .string(Digest.sha256Hex(rawNonce)), "email_verified": flag, "is_private_email": flag,
            ])
            let response = try await appleLogin(stack, token, rawNonce: rawNonce)
            #expect(response.status == 200, "\(audience): \(response.text)")
            let verified = try await stack.callResult(Endpoints.verify, VerifyRequest(provider: .apple, token: token, nonce: rawNonce)).get()
            #expect(verified.subject == sub && verified.emailVerified == true && verified.isPrivateEmail == true)
            let raw = try await appleLogin(stack, token, rawNonce: Digest.sha256Hex(rawNonce))
            #expect(raw.failure?.code == .nonceMismatch, "the hash itself is not the raw nonce")
            #expect(try await appleLogin(stack, token).failure?.code == .nonceMismatch, "token nonce without rawNonce")
        }
        let other = try await stack.idToken("apple", sub: RunningStack.uniqueSubject(), claims: ["aud": .string("com.other.app")])
        #expect(try await appleLogin(stack, other).failure?.code == .invalidProviderToken)
    }

    @Test("Apple code exchange: Apple's refresh token comes back sealed; the code is spent; the client secret is cached")
    func appleCodeExchange() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let token = try await stack.idToken("apple", sub: sub)
        let code = await stack.idp.mintAppleCode(subject: sub)
        let login = try await appleLogin(stack, token, code: code)
        #expect(login.status == 200, "body: \(login.text)")
        #expect(await stack.idp.appleCodeIsUsed(code))
        #expect(await stack.idp.appleRefreshTokens(subject: sub).count == 1)

        let second = await stack.idp.mintAppleCode(subject: sub)
        let identity = try await stack.callResult(Endpoints.verify, VerifyRequest(provider: .apple, token: token, authorizationCode: second)).get()
        let sealed = try #require(identity.sealedCredential)
        let refreshTokens = await stack.idp.appleRefreshTokens(subject: sub)
        #expect(refreshTokens.count == 2)
        for refreshToken in refreshTokens { #expect(!sealed.contains(refreshToken), "the credential is sealed, not plain") }
        let opened = try AESGCM.open(try #require(Base64URL.decode(sealed)), key: TestStack.providerTokenKey,
                                     associatedData: Array("social-login/credential/v1/APPLE/\(sub)".utf8))
        let credential = try JSONDecoder().decode([String: JSONValue].self, from: Data(opened))
        #expect(credential["clientId"] == .string(TestStack.ClientID.apple))
        #expect(refreshTokens.contains(credential["token"]?.stringValue ?? "none"))
        #expect(await stack.idp.stats().appleClientSecrets <= 2, "one client secret per client ID, reused")
    }

    @Test("Apple code refused or Apple down: the login still succeeds, without a kept grant; another user's code is refused")
    func appleCodeFailures() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let token = try await stack.idToken("apple", sub: sub)
        let unknown = try await stack.callResult(Endpoints.verify, VerifyRequest(provider: .apple, token: token, authorizationCode: "not-a-code")).get()
        #expect(unknown.subject == sub && unknown.sealedCredential == nil)
        #expect(try await appleLogin(stack, token, code: "not-a-code").status == 200)

        await stack.idp.control("apple", ProviderControl(available: false, subject: sub))
        let code = await stack.idp.mintAppleCode(subject: sub)
        let down = try await stack.callResult(Endpoints.verify, VerifyRequest(provider: .apple, token: token, authorizationCode: code)).get()
        #expect(down.sealedCredential == nil)
        #expect(await stack.idp.appleCodeIsUsed(code) == false)
        await stack.idp.control("apple", ProviderControl(available: true, subject: sub))

        let foreign = await stack.idp.mintAppleCode(subject: RunningStack.uniqueSubject("someone-else"))
        let refused = try await appleLogin(stack, token, code: foreign)
        #expect(refused.status == 401)
        #expect(refused.failure?.code == .invalidProviderToken)
    }

    @Test("an Apple code exchange answered after the provider timeout keeps no grant, though Apple issued one that nothing revokes")
    func appleExchangeTooSlow() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let token = try await stack.idToken("apple", sub: sub)
        // Well past the timeout, so a busy machine cannot let the verifier read it in time.
        let late = Int((TestStack.providerTimeout + .seconds(3)).components.seconds) * 1000
        await stack.idp.control("apple", ProviderControl(delayMs: late, subject: sub))
        let code = await stack.idp.mintAppleCode(subject: sub)
        let identity = try await stack.callResult(Endpoints.verify, VerifyRequest(provider: .apple, token: token, authorizationCode: code)).get()
        #expect(identity.subject == sub)
        #expect(identity.sealedCredential == nil, "the verifier stopped waiting, so it kept no grant")
        // Apple finished the exchange anyway: a live grant the member does not hold, which its deletion cannot revoke
        // (what the Apple revocation test met under load when its login's exchange timed out).
        #expect(await eventually { await stack.idp.appleRefreshTokens(subject: sub).count == 1 })
        await stack.idp.control("apple", ProviderControl(delayMs: 0, subject: sub))
    }

    @Test("Naver: the profile API proves the token; only id is required; the access token comes back sealed")
    func naver() async throws {
        let stack = try await TestStack.shared.running()
        let id = RunningStack.uniqueSubject("naver")
        let token = await stack.naverToken(NaverAccount(id: id, email: "\(id)@naver.example", nickname: "nick"))
        let login = try await naverLogin(stack, token)
        #expect(login.status == 200, "body: \(login.text)")
        let tokens = try login.data(LoginResponse.self)
        let me = try await stack.get("/api/members/me", bearer: tokens.accessToken).data(MemberResponse.self)
        #expect(me.identities.map(\.provider) == ["NAVER"])
        #expect(me.email == "\(id)@naver.example")
        let identity = try await stack.callResult(Endpoints.verify, VerifyRequest(provider: .naver, token: token)).get()
        #expect(identity.subject == id && identity.name == "nick" && identity.sealedCredential != nil)
        #expect(identity.sealedCredential?.contains(token) == false)

        let bare = await stack.naverToken(NaverAccount(id: RunningStack.uniqueSubject("naver")))
        #expect(try await naverLogin(stack, bare).status == 200, "only id is required")
    }

    @Test("Naver refusing the token is INVALID_PROVIDER_TOKEN", arguments: ["unknown", "024", "no-id", "spaces"])
    func naverRefusals(_ kind: String) async throws {
        let stack = try await TestStack.shared.running()
        let token: String
        switch kind {
        case "unknown": token = "AAAA-never-minted-\(UUID().uuidString)"
        case "024": token = await stack.naverToken(NaverAccount(id: RunningStack.uniqueSubject("naver"), resultcode: "024"))
        case "no-id": token = await stack.naverToken(NaverAccount(id: nil, email: "x@naver.example"))
        default: token = "bad token with spaces"
        }
        let response = try await naverLogin(stack, token)
        #expect(response.status == 401, "body: \(response.text)")
        #expect(response.failure?.code == .invalidProviderToken)
    }

    @Test("a Naver token with a control character is refused at the gateway: 400, Naver is not asked")
    func naverControlCharacter() async throws {
        let stack = try await TestStack.shared.running()
        let response = try await naverLogin(stack, "bad token with a line break\n")
        #expect(response.status == 400, "body: \(response.text)")
        #expect(response.failure?.code == .invalidRequest)
    }

    @Test("Naver down or too slow is PROVIDER_UNAVAILABLE (502)", arguments: [ProviderControl(available: false), ProviderControl(delayMs: 4500)])
    func naverUnavailable(_ control: ProviderControl) async throws {
        let stack = try await TestStack.shared.running()
        let id = RunningStack.uniqueSubject("naver")
        let token = await stack.naverToken(NaverAccount(id: id))
        var scoped = control
        scoped.subject = id
        await stack.idp.control("naver", scoped)
        let response = try await naverLogin(stack, token)
        #expect(response.status == 502, "body: \(response.text)")
        #expect(response.failure?.code == .providerUnavailable)
        await stack.idp.control("naver", ProviderControl(available: true, delayMs: 0, subject: id))
        #expect(try await naverLogin(stack, token).status == 200)
    }
}
