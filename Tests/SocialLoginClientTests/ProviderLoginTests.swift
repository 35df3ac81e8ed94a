import DevIDP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SocialLoginClient
import Testing
import TestSupport

/// Each provider's login call, with what that provider's iOS SDK hands the app, against the
/// real gateway stack: the member is created or found, the tokens are stored, the state changes.
@Suite("Login with each provider")
struct ProviderLoginTests {
    @Test("Google: the first login creates the member, the next finds it; tokens land in the store")
    func google() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()
        let store = InMemoryTokenStore()
        let client = makeClient(stack.gatewayURL, store: store)

        let first = try await client.login(with: .google(idToken: try await stack.googleToken(sub: sub)))
        #expect(first.isNewMember)
        let stored = try #require(await store.loadTokens())
        #expect(stored.memberId == first.memberId)
        #expect(!stored.accessToken.isEmpty && !stored.refreshToken.isEmpty)
        #expect(abs(stored.expiresAt.timeIntervalSinceNow - 900) < 30)
        #expect(try await client.currentMemberId() == first.memberId)

        let again = try await client.login(with: .google(idToken: try await stack.googleToken(sub: sub)))
        #expect(!again.isNewMember)
        #expect(again.memberId == first.memberId)

        let member = try await client.me()
        #expect(member.memberId == first.memberId)
        #expect(member.email == "\(sub)@example.com")
        #expect(member.identities.map(\.provider) == [.google])
    }

    @Test("Google with a nonce: the token carries its SHA-256, the client sends the raw value")
    func googleNonce() async throws {
        let stack = try await TestStack.shared.running()
        let nonce = Nonce.random()
        let token = try await stack.googleToken(sub: RunningStack.uniqueSubject(), claims: ["nonce": .string(nonce.sha256)])
        let result = try await makeClient(stack.gatewayURL).login(with: .google(idToken: token, nonce: nonce.raw))
        #expect(result.isNewMember)
    }

    @Test("Apple: nonce helper, full name and email of the first sign-in are sent and kept")
    func apple() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()
        let nonce = Nonce.random()
        let client = makeClient(stack.gatewayURL)
        var name = PersonNameComponents()
        name.givenName = "Ada"
        name.familyName = "Lovelace"
        let result = try await client.login(with: .apple(identityToken: try await stack.appleToken(sub: sub, nonce: nonce.sha256),
                                                         fullName: name, email: "ada@example.com", rawNonce: nonce.raw))
        #expect(result.isNewMember)
        let member = try await client.me()
        #expect(member.name == "Ada Lovelace")
        #expect(member.identities.map(\.provider) == [.apple])

        // Apple sends the name only once; a later login without it keeps it.
        let nextNonce = Nonce.random()
        let again = try await client.login(with: .apple(identityToken: try await stack.appleToken(sub: sub, nonce: nextNonce.sha256),
                                                        fullName: PersonNameComponents(), rawNonce: nextNonce.raw))
        #expect(again.memberId == result.memberId && !again.isNewMember)
        #expect(try await client.me().name == "Ada Lovelace")
    }

    @Test("Kakao: ID token with the raw nonce")
    func kakao() async throws {
        let stack = try await TestStack.shared.running()
        let nonce = Nonce.random().raw
        let client = makeClient(stack.gatewayURL)
        let result = try await client.login(with: .kakao(idToken: try await stack.kakaoToken(sub: RunningStack.uniqueSubject(), nonce: nonce),
                                                         nonce: nonce))
        #expect(result.isNewMember)
        #expect(try await client.me().identities.map(\.provider) == [.kakao])
    }

    @Test("Naver: the access token and the device fields reach /api/auth/naver-login; the refusal is a typed error")
    func naverRequest() async throws {
        let stack = try await TestStack.shared.running()
        let proxy = try GatewayProxy.start(forwardingTo: stack.gatewayURL)
        defer { proxy.stop() }
        let client = makeClient(proxy.url, deviceId: "naver-device")
        // The stack's Naver is on, and its profile API (dev-idp's) knows no such token: 401.
        let error = await #expect(throws: APIError.self) {
            try await client.login(with: .naver(accessToken: "AAAA-not-a-naver-token"))
        }
        #expect(error?.code == .invalidProviderToken, "\(String(describing: error))")
        let body = try #require(proxy.jsonBodies("POST /api/auth/naver-login").first)
        #expect(body["accessToken"] as? String == "AAAA-not-a-naver-token")
        #expect(body["deviceId"] as? String == "naver-device")
        #expect(body["timezone"] as? String == "Asia/Seoul")
        #expect(body["locale"] as? String == "ko-KR")
        #expect(try await client.currentMemberId() == nil)
    }

    @Test("Naver: a genuine access token signs in, and the same account again finds the member")
    func naver() async throws {
        let stack = try await TestStack.shared.running()
        let account = NaverAccount(id: RunningStack.uniqueSubject("naver"), email: "naver@example.com", name: "Naver User")
        let client = makeClient(stack.gatewayURL)
        let first = try await client.login(with: .naver(accessToken: await stack.naverToken(account)))
        #expect(first.isNewMember == true)
        #expect(try await client.currentMemberId() == first.memberId)
        let again = try await makeClient(stack.gatewayURL).login(with: .naver(accessToken: await stack.naverToken(account)))
        #expect(again.memberId == first.memberId)
        #expect(again.isNewMember == false)
    }

    @Test("the state stream reports signed out, then signed in with the member")
    func states() async throws {
        let stack = try await TestStack.shared.running()
        let client = makeClient(stack.gatewayURL)
        let states = await client.authStates()
        let result = try await client.login(with: .google(idToken: try await stack.googleToken(sub: RunningStack.uniqueSubject())))
        #expect(await collect(states, count: 2) == [.signedOut(.noSession), .signedIn(memberId: result.memberId)])
    }

    @Test("the stored device identifier is made once and sent with every login")
    func deviceIdentifier() async throws {
        let stack = try await TestStack.shared.running()
        let proxy = try GatewayProxy.start(forwardingTo: stack.gatewayURL)
        defer { proxy.stop() }
        let store = InMemoryTokenStore()
        let sub = RunningStack.uniqueSubject()
        for _ in 0..<2 {
            // A new client each time, as after an app restart.
            let client = AuthClient(baseURL: URL(string: proxy.url)!, tokenStore: store)
            try await client.login(with: .google(idToken: try await stack.googleToken(sub: sub)))
        }
        let sent = proxy.jsonBodies("POST /api/auth/google-login").compactMap { $0["deviceId"] as? String }
        let stored = try #require(await store.loadDeviceIdentifier())
        #expect(sent == [stored, stored])
    }
}
