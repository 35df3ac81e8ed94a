import Contracts
import Foundation
import Crypto
import JOSE
import Testing
import TestSupport

/// Provider tokens that must not sign anyone in: each gets its exact 401 code in the error
/// envelope, never a 5xx.
@Suite("Provider token rejection through the gateway")
struct ProviderTokenRejectionTests {
    private func login(_ stack: RunningStack, token: String, nonce: String? = nil) async throws -> APIResponse {
        try await stack.post("/api/auth/google-login", json: GoogleLoginBody(idToken: token, deviceId: "device-1", nonce: nonce))
    }

    private func expectFailure(_ response: APIResponse, _ status: Int, _ code: ErrorCode,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == status, "body: \(response.text)", sourceLocation: sourceLocation)
        #expect(response.failure?.code == code, "body: \(response.text)", sourceLocation: sourceLocation)
        #expect(response.failure?.message.isEmpty == false, sourceLocation: sourceLocation)
        #expect(response.headers["x-request-id"] != nil, sourceLocation: sourceLocation)
    }

    @Test("a token for another audience")
    func wrongAudience() async throws {
        let stack = try await TestStack.shared.running()
        let token = try await stack.googleToken(sub: RunningStack.uniqueSubject(),
                                                claims: ["aud": .string("someone-elses-app"), "azp": .string("someone-elses-app")])
        expectFailure(try await login(stack, token: token), 401, .invalidProviderToken)
    }

    @Test("an expired token")
    func expired() async throws {
        let stack = try await TestStack.shared.running()
        let now = Int64(Date().timeIntervalSince1970)
        let token = try await stack.googleToken(sub: RunningStack.uniqueSubject(),
                                                claims: ["iat": .integer(now - 7200), "exp": .integer(now - 3600)])
        expectFailure(try await login(stack, token: token), 401, .providerTokenExpired)
    }

    @Test("a token signed by a key that is not in the provider's JWKS")
    func unknownKey() async throws {
        let stack = try await TestStack.shared.running()
        let token = try await stack.googleToken(sub: RunningStack.uniqueSubject(), unpublishedKey: true)
        expectFailure(try await login(stack, token: token), 401, .invalidProviderToken)
    }

    @Test("a token from another issuer")
    func wrongIssuer() async throws {
        let stack = try await TestStack.shared.running()
        let token = try await stack.googleToken(sub: RunningStack.uniqueSubject(), claims: ["iss": .string("https://evil.example")])
        expectFailure(try await login(stack, token: token), 401, .invalidProviderToken)
    }

    @Test("a token with a tampered payload")
    func tampered() async throws {
        let stack = try await TestStack.shared.running()
        let token = try await stack.googleToken(sub: RunningStack.uniqueSubject())
        let parts = token.split(separator: ".").map(String.init)
        let otherPayload = Base64URL.encode(Array(#"{"sub":"admin","aud":"test-google-ios.apps.example.com"}"#.utf8))
        expectFailure(try await login(stack, token: [parts[0], otherPayload, parts[2]].joined(separator: ".")), 401, .invalidProviderToken)
    }

    @Test("garbage instead of a token", arguments: ["x", "a.b.c", "....", String(repeating: "A", count: 9000), "eyJhbGciOiJub25lIn0.e30."])
    func garbage(_ token: String) async throws {
        let stack = try await TestStack.shared.running()
        expectFailure(try await login(stack, token: token), 401, .invalidProviderToken)
    }

    @Test("a nonce that does not match the token's")
    func nonceMismatch() async throws {
        let stack = try await TestStack.shared.running()
        let rawNonce = "nonce-\(UUID().uuidString)"
        let token = try await stack.googleToken(sub: RunningStack.uniqueSubject(), claims: ["nonce": .string(Digest.sha256Hex(rawNonce))])
        let matched = try await login(stack, token: token, nonce: rawNonce)
        #expect(matched.status == 200, "body: \(matched.text)")
        expectFailure(try await login(stack, token: token, nonce: "another-nonce"), 401, .nonceMismatch)
    }
}
