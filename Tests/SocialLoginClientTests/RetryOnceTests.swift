import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SocialLoginClient
import Testing
import TestSupport

/// On a 401 the client refreshes once and retries the request once, never more; other
/// failures are not retried and cause no refresh.
@Suite("Retry once after a 401")
struct RetryOnceTests {
    @Test("a request that gets 401 even after the refresh is not retried again, and the user stays signed in")
    func persistent401() async throws {
        try await withSignedInClient { (_, signedIn) async throws in
            signedIn.proxy.answer("GET /api/members/me", status: 401, code: "UNAUTHORIZED")

            let error = await #expect(throws: APIError.self) { try await signedIn.client.me() }
            #expect(error?.code == .unauthorized)
            #expect(error?.status == 401)
            #expect(signedIn.proxy.count("GET /api/members/me") == 2)
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
            // The refresh worked, so the session is intact.
            #expect(try await signedIn.client.currentMemberId() == signedIn.memberId)
            #expect(await signedIn.store.loadTokens() != nil)
        }
    }

    @Test("the app's own request gets the second 401 back as a response, after exactly two sends")
    func ownRequest() async throws {
        try await withSignedInClient { _, signedIn in
            signedIn.proxy.answer("POST /app/orders", status: 401, code: "UNAUTHORIZED")
            var request = URLRequest(url: URL(string: signedIn.proxy.url + "/app/orders")!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(#"{"item":42}"#.utf8)

            let (_, response) = try await signedIn.client.authorizedData(for: request)
            #expect(response.statusCode == 401)
            #expect(signedIn.proxy.count("POST /app/orders") == 2)
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
            // The retry is the same request (body included) with the new token.
            #expect(signedIn.proxy.jsonBodies("POST /app/orders").map { $0["item"] as? Int } == [42, 42])
            let bearers = signedIn.proxy.authorizations("POST /app/orders")
            #expect(bearers.count == 2 && bearers[0] != bearers[1])
        }
    }

    @Test("other failures are neither retried nor cause a refresh", arguments: [(403, "FORBIDDEN"), (500, "INTERNAL"), (503, "SERVICE_UNAVAILABLE")])
    func otherFailures(_ status: Int, _ code: String) async throws {
        try await withSignedInClient { _, signedIn in
            signedIn.proxy.answer("GET /api/members/me", status: status, code: code)

            let error = await #expect(throws: APIError.self) { try await signedIn.client.me() }
            #expect(error?.code == APIErrorCode(rawValue: code))
            #expect(error?.status == status)
            #expect(signedIn.proxy.count("GET /api/members/me") == 1)
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 0)
        }
    }
}
