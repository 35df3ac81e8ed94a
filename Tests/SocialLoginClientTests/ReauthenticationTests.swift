import Foundation
import JSON
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import SocialLoginClient
import Testing
import TestSupport

/// The recent sign-in rule seen from the app, and calls that carry a token never follow a redirect elsewhere.
@Suite("Fresh sign-in and redirects of token-carrying calls")
struct ReauthenticationTests {
    @Test("an old sign-in's link is ClientError.reauthenticationRequired with no refresh; signing in again, the retry links")
    func reauthenticationThenRetry() async throws {
        try await withSignedInClient { stack, signedIn in
            // The session signed in an hour ago: moved back in the database, then refreshed, as after an hour of use.
            let sessions = try await stack.rows("""
                UPDATE issuer.sessions SET signed_in_at = signed_in_at - interval '1 hour'
                 WHERE member_id = \(signedIn.memberId) AND ended_at IS NULL RETURNING id::text
                """)
            #expect(sessions.count == 1)
            try await signedIn.client.refresh()
            let refreshesBefore = signedIn.proxy.count("POST /api/auth/refresh")
            let kakaoSub = RunningStack.uniqueSubject("kakao")
            // Each link sends a Kakao ID token minted for it. (Not through a closure kept in a local and called inside
            // #expect's: that form crashed the test process in swift_release, depending on which other files the test
            // binary held, with Swift 6.3 on Linux.)
            let stale = ProviderCredential.kakao(idToken: try await stack.idToken("kakao", sub: kakaoSub))
            await #expect(throws: ClientError.reauthenticationRequired) { try await signedIn.client.linkIdentity(stale) }
            await #expect(throws: ClientError.reauthenticationRequired) { try await signedIn.client.deleteAccount() }
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == refreshesBefore, "a refresh cannot make a sign-in fresh")
            // Still signed in, still reading.
            #expect(try await signedIn.client.me().memberId == signedIn.memberId)

            // The whole flow: sign in with the provider again, then retry.
            let again = try await signedIn.client.login(with: .google(idToken: try await stack.googleToken(sub: signedIn.sub)))
            #expect(again.memberId == signedIn.memberId)
            let member = try await signedIn.client.linkIdentity(.kakao(idToken: try await stack.idToken("kakao", sub: kakaoSub)))
            #expect(member.identities.count == 2)
        }
    }

    @Test("a link whose provider token is refused (too old) is an APIError, neither refreshed nor sent again")
    func providerTokenRefusalNotResent() async throws {
        try await withSignedInClient { stack, signedIn in
            let now = Int64(Date().timeIntervalSince1970)
            let old = try await stack.idToken("kakao", sub: RunningStack.uniqueSubject("kakao"),
                                              claims: ["iat": .integer(now - 600), "exp": .integer(now + 3_000)])
            let refreshesBefore = signedIn.proxy.count("POST /api/auth/refresh")
            do {
                _ = try await signedIn.client.linkIdentity(.kakao(idToken: old))
                Issue.record("an ID token ten minutes old was linked")
            } catch let error as APIError {
                #expect(error.code == .providerTokenExpired && error.reason == "tooOldToLink", "\(error)")
            }
            #expect(signedIn.proxy.count("POST /api/members/me/identities") == 1)
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == refreshesBefore)
        }
    }

    @Test("a 307 to another origin on refresh is refused: the refresh token is not sent there, and the user stays signed in")
    func refreshRedirectRefused() async throws {
        try await withSignedInClient { stack, signedIn in
            let elsewhere = try GatewayProxy.start(forwardingTo: stack.gatewayURL)
            defer { elsewhere.stop() }
            signedIn.proxy.answer("POST /api/auth/refresh", status: 307, headers: [("Location", elsewhere.url + "/api/auth/refresh")])

            await #expect(throws: ClientError.redirectRefused) { try await signedIn.client.refresh() }
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
            #expect(elsewhere.count("POST /api/auth/refresh") == 0, "the refresh token went to the other origin")
            #expect(try await signedIn.store.loadTokens() != nil, "still signed in")

            // A login too: its provider token stays with the API.
            signedIn.proxy.answer("POST /api/auth/google-login", status: 308, headers: [("Location", elsewhere.url + "/api/auth/google-login")])
            await #expect(throws: ClientError.redirectRefused) {
                try await signedIn.client.login(with: .google(idToken: try await stack.googleToken(sub: signedIn.sub)))
            }
            #expect(elsewhere.count("POST /api/auth/google-login") == 0)

            // A DELETE has no body, but is no GET either: not followed, and said so.
            signedIn.proxy.answer("DELETE /api/members/me/identities/kakao", status: 307,
                                  headers: [("Location", elsewhere.url + "/api/members/me/identities/kakao")])
            await #expect(throws: ClientError.redirectRefused) { try await signedIn.client.unlinkIdentity(.kakao) }
            #expect(elsewhere.count("DELETE /api/members/me/identities/kakao") == 0)
        }
    }
}
