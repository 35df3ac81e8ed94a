import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SocialLoginClient
import Testing
import TestSupport

/// An access token that expires within the margin is refreshed before the request, saving the
/// 401 round trip; one far from expiry is not.
@Suite("Proactive refresh before expiry")
struct ProactiveRefreshTests {
    private func expiring(in seconds: TimeInterval, _ signedIn: SignedInClient) async throws -> AuthClient {
        var tokens = try #require(await signedIn.store.loadTokens())
        tokens.expiresAt = Date().addingTimeInterval(seconds)
        await signedIn.store.saveTokens(tokens)
        return makeClient(signedIn.proxy.url, store: signedIn.store)
    }

    @Test("a token expiring within the margin is refreshed first; the request goes out once")
    func nearExpiry() async throws {
        try await withSignedInClient { _, signedIn in
            let before = try #require(await signedIn.store.loadTokens())
            let client = try await expiring(in: 10, signedIn)

            #expect(try await client.me().memberId == signedIn.memberId)
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
            #expect(signedIn.proxy.count("GET /api/members/me") == 1)
            let after = try #require(await signedIn.store.loadTokens())
            #expect(after.refreshToken != before.refreshToken)
            #expect(after.expiresAt.timeIntervalSinceNow > 800)
        }
    }

    @Test("a token far from expiry is used as it is")
    func farFromExpiry() async throws {
        try await withSignedInClient { _, signedIn in
            _ = try await signedIn.client.me()
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 0)
        }
    }

    @Test("when the proactive refresh fails for a transient reason, the still-valid token is used")
    func transientFailure() async throws {
        try await withSignedInClient { _, signedIn in
            signedIn.proxy.answer("POST /api/auth/refresh", status: 503, code: "SERVICE_UNAVAILABLE")
            let client = try await expiring(in: 10, signedIn)

            #expect(try await client.me().memberId == signedIn.memberId)
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
            #expect(try await client.currentMemberId() == signedIn.memberId)
        }
    }
}
