import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SocialLoginClient
import Testing
import TestSupport

/// `refresh()` rotates the stored tokens through `POST /api/auth/refresh`.
@Suite("Refresh through the client")
struct ClientRefreshTests {
    @Test("refresh stores a new refresh and access token for the same member, sending the device ID")
    func rotates() async throws {
        try await withSignedInClient(deviceId: "refresh-device") { stack, signedIn in
            let before = try #require(await signedIn.store.loadTokens())

            try await signedIn.client.refresh()
            let after = try #require(await signedIn.store.loadTokens())
            #expect(after.refreshToken != before.refreshToken)
            #expect(after.accessToken != before.accessToken)
            #expect(after.memberId == before.memberId)
            let body = try #require(signedIn.proxy.jsonBodies("POST /api/auth/refresh").first)
            #expect(body["refreshToken"] as? String == before.refreshToken)
            #expect(body["deviceId"] as? String == "refresh-device")

            // The new tokens work and refresh again.
            #expect(try await signedIn.client.me().memberId == signedIn.memberId)
            try await signedIn.client.refresh()
            #expect(try #require(await signedIn.store.loadTokens()).refreshToken != after.refreshToken)

            // The first refresh token was rotated away: presented after the reuse grace window, it is refused.
            try await Task.sleep(for: TestStack.reuseGrace + .milliseconds(500))
            let stale = InMemoryTokenStore()
            await stale.saveTokens(before)
            let error = await #expect(throws: APIError.self) {
                try await makeClient(stack.gatewayURL, store: stale, deviceId: "refresh-device").refresh()
            }
            #expect(error?.code == .refreshTokenReused, "\(String(describing: error))")
        }
    }

    @Test("authorized requests carry the stored access token as Bearer")
    func bearer() async throws {
        try await withSignedInClient { _, signedIn in
            let tokens = try #require(await signedIn.store.loadTokens())
            var request = URLRequest(url: URL(string: signedIn.proxy.url + "/api/members/me")!)
            request.httpMethod = "GET"
            let (_, response) = try await signedIn.client.authorizedData(for: request)
            #expect(response.statusCode == 200)
            #expect(signedIn.proxy.authorizations("GET /api/members/me") == ["Bearer \(tokens.accessToken)"])
        }
    }
}
