import Contracts
import DevIDP
import Foundation
import JOSE
import Testing
import TestSupport

/// Key rotation at the issuer and the refetch limit, through the gateway, on Kakao (no other
/// suite sends Kakao tokens with unknown kids). In order: the rotation needs the refetch budget.
@Suite("Verifier key rotation and refetch limit", .serialized)
struct VerifierKeyRotationTests {
    private func login(_ stack: RunningStack, _ token: String) async throws -> APIResponse {
        try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: token, deviceId: "device-1"))
    }

    @Test("a token signed with a key rotated in at the issuer is accepted without restarting anything")
    func rotation() async throws {
        let stack = try await TestStack.shared.running()
        #expect(try await login(stack, try await stack.idToken("kakao", sub: RunningStack.uniqueSubject("kakao"))).status == 200)
        let before = await stack.idp.jwksFetches()["kakao"] ?? 0
        let kid = try #require(try await stack.idp.rotate("kakao"))
        let token = try await stack.idToken("kakao", sub: RunningStack.uniqueSubject("kakao"))
        #expect(try CompactJWS.parse(token).header.kid == kid)
        let response = try await login(stack, token)
        #expect(response.status == 200, "body: \(response.text)")
        #expect((await stack.idp.jwksFetches()["kakao"] ?? 0) - before == 1, "one refetch found the new key")
    }

    @Test("a flood of tokens with random kids causes at most one key-set fetch")
    func flood() async throws {
        let stack = try await TestStack.shared.running()
        let before = await stack.idp.jwksFetches()["kakao"] ?? 0
        for _ in 0..<10 {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let token = try await stack.idToken("kakao", sub: RunningStack.uniqueSubject("kakao"),
                                                            header: ["kid": .string(UUID().uuidString)])
                        return try await login(stack, token).status
                    }
                }
                for try await status in group { #expect(status == 401) }
            }
        }
        #expect((await stack.idp.jwksFetches()["kakao"] ?? 0) - before <= 1)
    }
}
