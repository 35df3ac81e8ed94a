import Contracts
import Foundation
import Testing
import TestSupport

/// The gateway checks an access token's signature once: tokens it has verified, or handed out itself
/// at a login or refresh, are remembered until they expire.
@Suite("Access-token signature checks")
struct AccessTokenCacheTests {
    @Test("a token this gateway issued or already verified costs no signature check; another gateway's costs one")
    func signatureChecks() async throws {
        let stack = try await TestStack.shared.running()
        let gateway = try await StandaloneGateway.start(natsURL: TestEnvironment.natsURL) { $0.rateLimitRPS = 0 }
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            try await gateway.waitUntilConnected()

            // Logged in through this gateway, then refreshed through it: no signature checked.
            let idToken = try await stack.googleToken(sub: RunningStack.uniqueSubject())
            let login = try await RunningStack.send("POST", gateway.url + "/api/auth/google-login",
                                                    headers: [("Content-Type", "application/json")],
                                                    body: Array(JSONEncoder().encode(GoogleLoginBody(idToken: idToken, deviceId: "d"))))
            let issued = try login.data(LoginResponse.self)
            #expect(try await me(issued.accessToken, at: gateway).status == 200)
            let refreshed = try await RunningStack.send("POST", gateway.url + "/api/auth/refresh",
                                                        headers: [("Content-Type", "application/json")],
                                                        body: Array(JSONEncoder().encode(RefreshBody(refreshToken: issued.refreshToken))))
            let rotated = try refreshed.data(LoginResponse.self)
            #expect(try await me(rotated.accessToken, at: gateway).status == 200)
            #expect(try await signatureChecks(gateway) == 0)

            // Issued through the shared gateway: checked once here, then remembered.
            let elsewhere = try await stack.googleSession()
            for _ in 0..<3 {
                #expect(try await me(elsewhere.accessToken, at: gateway).status == 200)
            }
            #expect(try await signatureChecks(gateway) == 1)

            // A forged token is checked, and refused, every time.
            let forged = String(elsewhere.accessToken.dropLast(4)) + "AAAA"
            for _ in 0..<2 {
                #expect(try await me(forged, at: gateway).status == 401)
            }
            #expect(try await signatureChecks(gateway) == 3)
        }
    }

    private func me(_ token: String, at gateway: StandaloneGateway) async throws -> APIResponse {
        try await RunningStack.send("GET", gateway.url + "/api/members/me", headers: [("Authorization", "Bearer \(token)")])
    }

    /// The gateway's `access_token_signature_checks_total`; a missing series fails the test rather than
    /// reading as 0 (the gateway registers it at start).
    private func signatureChecks(_ gateway: StandaloneGateway) async throws -> Int {
        let metrics = try await RunningStack.send("GET", gateway.managementURL + "/metrics").text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("access_token_signature_checks_total ") }
        let value = try #require(line.flatMap { Double($0.split(separator: " ").last ?? "") }, "no access_token_signature_checks_total in \(metrics)")
        return Int(value)
    }
}
