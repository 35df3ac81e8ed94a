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
        let stack = try await TestStack.shared.running()
        let signedIn = try await SignedInClient.make(stack, deviceId: "refresh-device")
        defer { signedIn.proxy.stop() }
        let before = try #require(await signedIn.store.loadTokens())

        try await signedIn.client.refresh()
        let after = try #require(await signedIn.store.loadTokens())
        #expect(after.refreshToken != before.refreshToken)
        #expect(after.accessToken != before.accessToken)
        #expect(after.memberId == before.memberId)
        let body = try #require(signedIn.proxy.jsonBodies("POST /api/auth/refresh").first)
        #expect(body["refreshToken"] as? String == before.refreshToken)
        #expect(body["deviceId"] as? String == "refresh-device")

        // The new tokens work, the old refresh token was rotated away.
        #expect(try await signedIn.client.me().memberId == signedIn.memberId)
        try await signedIn.client.refresh()
        #expect(try #require(await signedIn.store.loadTokens()).refreshToken != after.refreshToken)
    }

    @Test("authorized requests carry the stored access token as Bearer")
    func bearer() async throws {
        let stack = try await TestStack.shared.running()
        let signedIn = try await SignedInClient.make(stack)
        defer { signedIn.proxy.stop() }
        let tokens = try #require(await signedIn.store.loadTokens())
        var request = URLRequest(url: URL(string: signedIn.proxy.url + "/api/members/me")!)
        request.httpMethod = "GET"
        let (_, response) = try await signedIn.client.authorizedData(for: request)
        #expect(response.statusCode == 200)
        #expect(signedIn.proxy.authorizations("GET /api/members/me") == ["Bearer \(tokens.accessToken)"])
    }
}
