import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SocialLoginClient
import Testing
import TestSupport

/// Many requests that need a refresh at once share one: exactly one refresh request reaches
/// the server, and every request then succeeds with the new token.
@Suite("Single-flight refresh")
struct SingleFlightRefreshTests {
    @Test("30 concurrent requests that all get 401 cause one refresh, and all succeed on their one retry")
    func concurrent401s() async throws {
        try await withSignedInClient { _, signedIn in
            let client = try await signedIn.withRefusedAccessToken()

            let members = try await withThrowingTaskGroup(of: Int64.self) { group in
                for _ in 0..<30 { group.addTask { try await client.me().memberId } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(members.count == 30 && members.allSatisfy { $0 == signedIn.memberId })
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
            // Each request went out twice: with the refused token, then once with the new one.
            #expect(signedIn.proxy.count("GET /api/members/me") == 60)
            let refreshed = try #require(await signedIn.store.loadTokens())
            let bearers = signedIn.proxy.authorizations("GET /api/members/me")
            #expect(bearers.filter { $0 == "Bearer refused.access.token" }.count == 30)
            #expect(bearers.filter { $0 == "Bearer \(refreshed.accessToken)" }.count == 30)
        }
    }

    @Test("20 concurrent refresh() calls send one refresh request")
    func concurrentRefreshCalls() async throws {
        try await withSignedInClient { _, signedIn in
            let client = signedIn.client
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 { group.addTask { try await client.refresh() } }
                try await group.waitForAll()
            }
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
            #expect(try await client.me().memberId == signedIn.memberId)
        }
    }

    @Test("a 401 that arrives after another request already refreshed retries with the new token, without a second refresh")
    func lateUnauthorized() async throws {
        try await withSignedInClient { _, signedIn in
            let client = try await signedIn.withRefusedAccessToken()
            // The app's own endpoint answers 401 slowly: its first answer comes after me() has refreshed.
            signedIn.proxy.answer("GET /app/slow", status: 401, code: "UNAUTHORIZED", delay: .milliseconds(1500))
            let slowRequest = URLRequest(url: URL(string: signedIn.proxy.url + "/app/slow")!)
            async let slow = client.authorizedData(for: slowRequest)
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await client.me().memberId == signedIn.memberId)
            let (_, response) = try await slow

            #expect(response.statusCode == 401)
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
            let refreshed = try #require(await signedIn.store.loadTokens())
            #expect(signedIn.proxy.authorizations("GET /app/slow") == ["Bearer refused.access.token", "Bearer \(refreshed.accessToken)"])
        }
    }
}
