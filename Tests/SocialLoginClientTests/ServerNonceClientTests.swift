import Contracts
import Foundation
@testable import SocialLoginClient
import Testing
import TestSupport

/// `signIn(serverNonce:)` against a server that requires server nonces of Kakao (`REQUIRE_SERVER_NONCE`).
@Suite("Signing in with a server nonce")
struct ServerNonceClientTests {
    private static let stack = TestStack.isolated(requireServerNonce: [.kakao])

    @Test("asked to, signIn fetches a server nonce for the device and the login passes; an app-made nonce is refused with its reason")
    func signInFetchesNonce() async throws {
        let stack = try await Self.stack.running()
        let client = makeClient(stack.gatewayURL, deviceId: "nonce-phone")
        let sub = RunningStack.uniqueSubject("kakao")
        let kakao = { (nonce: Nonce) in
            ProviderCredential.kakao(idToken: try await stack.idToken("kakao", sub: sub, claims: ["nonce": .string(nonce.raw)]), nonce: nonce.raw)
        }
        do {
            try await client.signIn(serverNonce: false, kakao)
            Issue.record("an app-made nonce was accepted")
        } catch let error as APIError {
            #expect(error.code == .invalidProviderToken)
            #expect(error.reason == "nonceUnknown")
        }
        var given: Nonce?
        let result = try await client.signIn(serverNonce: true) { nonce in
            given = nonce
            return try await kakao(nonce)
        }
        #expect(given?.raw.hasPrefix("n1.") == true, "not a server nonce: \(given?.raw ?? "none")")
        #expect(try await client.me().memberId == result.memberId)
    }
}
