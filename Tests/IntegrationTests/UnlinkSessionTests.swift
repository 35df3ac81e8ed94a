import Contracts
import Foundation
import Testing
import TestSupport

/// Unlinking an identity ends the sessions opened through it, and only those: when the unlink has
/// answered, their refresh tokens and access tokens are refused.
@Suite("Unlinking ends the identity's sessions")
struct UnlinkSessionTests {
    @Test("Google on one device, Kakao on another; unlinking Kakao ends the Kakao session and keeps the Google one")
    func unlinkEndsThatIdentitysSessions() async throws {
        let stack = try await TestStack.shared.running()
        let google = try await stack.googleSession(deviceId: "phone")
        let kakaoSub = RunningStack.uniqueSubject("kakao")
        let kakaoToken = { try await stack.mint("kakao", claims: ["sub": .string(kakaoSub), "aud": .string(TestStack.ClientID.kakao)]) }
        #expect(try await stack.link(google.accessToken, LinkIdentityBody(provider: "kakao", idToken: try await kakaoToken())).status == 200)
        let kakao = try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: try await kakaoToken(), deviceId: "tablet"))
            .data(LoginResponse.self)
        #expect(kakao.memberId == google.memberId)

        // The member unlinks Kakao from the Google device.
        let unlinked = try await stack.unlink(google.accessToken, "kakao")
        #expect(unlinked.status == 204, "body: \(unlinked.text)")

        #expect(try await stack.refresh(kakao.refreshToken).failure?.code == .invalidRefreshToken)
        let kakaoMe = try await stack.me(kakao.accessToken)
        #expect(kakaoMe.status == 401, "body: \(kakaoMe.text)")
        #expect(try await stack.send("GET", "/api/auth/sessions", bearer: kakao.accessToken).status == 401)

        #expect(try await stack.me(google.accessToken).data(MemberResponse.self).identities.map(\.provider) == ["GOOGLE"])
        let refreshed = try await stack.refresh(google.refreshToken)
        #expect(refreshed.status == 200, "body: \(refreshed.text)")
        let sessions = try await stack.send("GET", "/api/auth/sessions", bearer: try refreshed.data(LoginResponse.self).accessToken)
        #expect(try sessions.data([SessionResponse].self).map(\.deviceId) == ["phone"])
    }

    @Test("unlinking the identity the caller signed in with ends the caller's own session")
    func unlinkOwnIdentity() async throws {
        let stack = try await TestStack.shared.running()
        let google = try await stack.googleSession(deviceId: "phone")
        let kakaoSub = RunningStack.uniqueSubject("kakao")
        let kakaoToken = try await stack.mint("kakao", claims: ["sub": .string(kakaoSub), "aud": .string(TestStack.ClientID.kakao)])
        #expect(try await stack.link(google.accessToken, LinkIdentityBody(provider: "kakao", idToken: kakaoToken)).status == 200)

        #expect(try await stack.unlink(google.accessToken, "google").status == 204)
        #expect(try await stack.me(google.accessToken).status == 401)
        #expect(try await stack.refresh(google.refreshToken).failure?.code == .invalidRefreshToken)
    }
}
