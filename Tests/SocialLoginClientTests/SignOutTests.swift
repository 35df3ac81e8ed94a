import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SocialLoginClient
import Testing
import TestSupport

/// A refresh the server refuses (reused or revoked refresh token) signs the user out and says
/// why; a refresh that merely failed (server busy) keeps the user signed in.
@Suite("Sign-out when the refresh is refused")
struct SignOutTests {
    @Test("a refresh token reused after rotation: REFRESH_TOKEN_REUSED, store cleared, state says why")
    func reused() async throws {
        try await withSignedInClient { stack, signedIn in
            let states = await signedIn.client.authStates()
            // Someone else (a thief with a copy) uses the client's refresh token first.
            let stolen = try #require(await signedIn.store.loadTokens()).refreshToken
            let theft = try await stack.post("/api/auth/refresh", json: ["refreshToken": stolen])
            #expect(theft.status == 200)
            try await Task.sleep(for: TestStack.reuseGrace + .milliseconds(1500))

            let error = await #expect(throws: APIError.self) { try await signedIn.client.refresh() }
            #expect(error?.code == .refreshTokenReused)
            #expect(await signedIn.store.loadTokens() == nil)
            #expect(try await signedIn.client.currentMemberId() == nil)
            #expect(await collect(states, count: 2) == [.signedIn(memberId: signedIn.memberId), .signedOut(.refreshTokenReused)])
            // Signed out: nothing more is sent.
            await #expect(throws: ClientError.notSignedIn) { try await signedIn.client.me() }
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
            #expect(signedIn.proxy.count("GET /api/members/me") == 0)
            // The device identifier survives the sign-out.
            #expect(await signedIn.store.loadDeviceIdentifier() != nil)
        }
    }

    @Test("a revoked session (replaced by a newer login on the device): a 401 request refreshes, gets INVALID_REFRESH_TOKEN, signs out")
    func revoked() async throws {
        let device = "device-\(UUID().uuidString)"
        try await withSignedInClient(deviceId: device) { stack, signedIn in
            // A newer login of the same member on the same device ends the client's session.
            #expect(try await stack.googleLogin(sub: signedIn.sub, deviceId: device).status == 200)
            let client = try await signedIn.withRefusedAccessToken(deviceId: device)
            let states = await client.authStates()

            let error = await #expect(throws: APIError.self) { try await client.me() }
            #expect(error?.code == .invalidRefreshToken)
            #expect(error?.status == 401)
            #expect(signedIn.proxy.count("GET /api/members/me") == 1)
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
            #expect(await signedIn.store.loadTokens() == nil)
            #expect(await collect(states, count: 2) == [.signedIn(memberId: signedIn.memberId), .signedOut(.sessionExpired)])
        }
    }

    @Test("concurrent requests whose refresh is refused sign out once and all fail")
    func concurrentRefused() async throws {
        try await withSignedInClient { _, signedIn in
            signedIn.proxy.answer("POST /api/auth/refresh", status: 401, code: "INVALID_REFRESH_TOKEN")
            let client = try await signedIn.withRefusedAccessToken()
            let states = await client.authStates()

            let failures = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        do { _ = try await client.me(); return false } catch { return error is APIError || error is ClientError }
                    }
                }
                return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(failures == 10)
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 1)
            #expect(await collect(states, count: 3, timeout: .seconds(1)) == [.signedIn(memberId: signedIn.memberId), .signedOut(.sessionExpired)])
        }
    }

    @Test("a refresh that fails with 503 or no connection keeps the user signed in")
    func transientFailure() async throws {
        try await withSignedInClient { _, signedIn in
            let before = try #require(await signedIn.store.loadTokens())
            signedIn.proxy.answer("POST /api/auth/refresh", status: 503, code: "SERVICE_UNAVAILABLE", headers: [("Retry-After", "2")])

            let error = await #expect(throws: APIError.self) { try await signedIn.client.refresh() }
            #expect(error?.code == .serviceUnavailable)
            #expect(error?.retryAfter == .seconds(2))
            #expect(await signedIn.store.loadTokens() == before)

            // Once the server is back, the same refresh token works.
            signedIn.proxy.forward("POST /api/auth/refresh")
            try await signedIn.client.refresh()
            #expect(try #require(await signedIn.store.loadTokens()).refreshToken != before.refreshToken)
        }
    }
}
