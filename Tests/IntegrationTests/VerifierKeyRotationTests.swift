import Contracts
import DevIDP
import Foundation
import JOSE
import Testing
import TestSupport

/// Key rotation at the issuer and the refetch limit, through the gateway, on Kakao. On a stack of
/// its own (own NATS, dev identity provider and verifier): on the shared one, other suites' Kakao
/// tokens met the rotated key and spent the verifier's one refetch per 30 s that this suite counts on.
/// In order: the rotation needs the refetch budget.
@Suite("Verifier key rotation and refetch limit", .serialized)
struct VerifierKeyRotationTests {
    /// The suite's own NATS server and stack, started once.
    private static let privateStack = PrivateStack()

    private actor PrivateStack {
        private var stack: RunningStack?
        private var nats: TestNATSServer?

        func running() async throws -> RunningStack {
            if let stack { return stack }
            let server = try await TestNATSServer.start(jetStream: true)
            nats = server
            let started = try await TestStack(natsURL: server.url).running()
            stack = started
            return started
        }
    }

    private func login(_ stack: RunningStack, _ token: String) async throws -> APIResponse {
        try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: token, deviceId: "device-1"))
    }

    @Test("a token signed with a key rotated in at the issuer is accepted without restarting anything")
    func rotation() async throws {
        let stack = try await Self.privateStack.running()
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
        let stack = try await Self.privateStack.running()
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
