import Contracts
import Crypto
import Foundation
import JSON
import Logging
import Messaging
import NATS
import Testing
import TestSupport
@testable import TokenVerifier

/// `REQUIRE_SERVER_NONCE`: a login or link of a listed provider needs a nonce from `POST /api/auth/nonce`,
/// issued for the same device, unexpired, matching the ID token's `nonce`, and never used before; else 401
/// `INVALID_PROVIDER_TOKEN` with the reason. On a stack of its own whose verifier requires them of Apple
/// and Kakao (Kakao's tokens carry the nonce as it is, Apple's its SHA-256).
@Suite("Server nonces: good once, for their device")
struct ServerNonceTests {
    private static let stack = TestStack.isolated(requireServerNonce: [.apple, .kakao])

    private func nonce(_ stack: RunningStack, device: String) async throws -> String {
        let answer = try await stack.post("/api/auth/nonce", json: NonceBody(deviceId: device))
        #expect(answer.status == 200, "body: \(answer.text)")
        let issued = try answer.data(NonceResponse.self)
        #expect(issued.expiresIn == 600)
        // Opaque, and at least 128 bits of it random.
        #expect(issued.nonce.utf8.count >= 22)
        return issued.nonce
    }

    private func kakaoLogin(_ stack: RunningStack, sub: String, tokenNonce: String?, bodyNonce: String?, device: String) async throws -> APIResponse {
        var claims: [String: JSONValue] = [:]
        if let tokenNonce { claims["nonce"] = .string(tokenNonce) }
        let token = try await stack.idToken("kakao", sub: sub, claims: claims)
        return try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: token, deviceId: device, nonce: bodyNonce))
    }

    private func expectRefused(_ answer: APIResponse, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(answer.status == 401, "\(answer.text)", sourceLocation: sourceLocation)
        #expect(answer.failure?.code == .invalidProviderToken, sourceLocation: sourceLocation)
        #expect(answer.failure?.reason == reason, "\(answer.text)", sourceLocation: sourceLocation)
    }

    @Test("missing, made up by the app, issued for another device, expired, or used before: 401 with its reason; a good one 200 once")
    func refusals() async throws {
        let stack = try await Self.stack.running()
        let sub = RunningStack.uniqueSubject("kakao")
        expectRefused(try await kakaoLogin(stack, sub: sub, tokenNonce: nil, bodyNonce: nil, device: "phone"), NonceRefusal.required)
        expectRefused(try await kakaoLogin(stack, sub: sub, tokenNonce: "made-up-by-the-app", bodyNonce: "made-up-by-the-app", device: "phone"),
                      NonceRefusal.unknown)
        let tablets = try await nonce(stack, device: "tablet")
        expectRefused(try await kakaoLogin(stack, sub: sub, tokenNonce: tablets, bodyNonce: tablets, device: "phone"), NonceRefusal.unknown)
        // Made with the stack's own key, ten minutes and more ago.
        let expired = ServerNonce.derived(from: TestStack.providerTokenKey)
            .issue(deviceId: "phone", now: Int64(Date().timeIntervalSince1970) - ServerNonce.lifetime - 1)
        let stale = try await kakaoLogin(stack, sub: sub, tokenNonce: expired, bodyNonce: expired, device: "phone")
        expectRefused(stale, NonceRefusal.unknown)
        #expect(stale.failure?.message.contains("expired") == true)
        #expect(try await stack.count("SELECT count(*)::text FROM member.identities WHERE provider_user_id = \(sub)") == 0)

        let good = try await nonce(stack, device: "phone")
        // A token whose nonce claim is not the one sent: the verifier's nonce check refuses it.
        #expect(try await kakaoLogin(stack, sub: sub, tokenNonce: "other", bodyNonce: good, device: "phone").status == 401)
        let first = try await kakaoLogin(stack, sub: sub, tokenNonce: good, bodyNonce: good, device: "phone")
        #expect(first.status == 200, "body: \(first.text)")
        expectRefused(try await kakaoLogin(stack, sub: sub, tokenNonce: good, bodyNonce: good, device: "phone"), NonceRefusal.used)

        // Apple: the token carries the nonce's SHA-256, the body the nonce (rawNonce).
        let appleSub = RunningStack.uniqueSubject("apple")
        let appleNonce = try await nonce(stack, device: "phone")
        let apple = try await stack.post("/api/auth/apple-login", json: AppleLoginBody(
            identityToken: try await stack.appleToken(sub: appleSub, rawNonce: appleNonce), deviceId: "phone", rawNonce: appleNonce))
        #expect(apple.status == 200, "body: \(apple.text)")
        // Google is not listed: its logins go on without one.
        #expect(try await stack.googleLogin(sub: RunningStack.uniqueSubject()).status == 200)
    }

    @Test("the same ID token and nonce sent twice at the same moment: exactly one 200")
    func concurrentUse() async throws {
        let stack = try await Self.stack.running()
        let good = try await nonce(stack, device: "phone")
        let token = try await stack.idToken("kakao", sub: RunningStack.uniqueSubject("kakao"), claims: ["nonce": .string(good)])
        let body = KakaoLoginBody(idToken: token, deviceId: "phone", nonce: good)
        async let a = stack.post("/api/auth/kakao-login", json: body)
        async let b = stack.post("/api/auth/kakao-login", json: body)
        let answers = try await [a, b]
        #expect(answers.map(\.status).sorted() == [200, 401], "\(answers.map(\.text))")
        #expect(answers.compactMap(\.failure?.reason) == [NonceRefusal.used])
    }

    @Test("a link needs one too, issued for the device the body names")
    func link() async throws {
        let stack = try await Self.stack.running()
        let login = try await stack.googleLogin(sub: RunningStack.uniqueSubject()).data(LoginResponse.self)
        let kakaoSub = RunningStack.uniqueSubject("kakao")
        let without = try await stack.link(login.accessToken, LinkIdentityBody(provider: "kakao", idToken: try await stack.idToken("kakao", sub: kakaoSub)))
        expectRefused(without, NonceRefusal.required)
        let good = try await nonce(stack, device: "device-1")
        let token = try await stack.idToken("kakao", sub: kakaoSub, claims: ["nonce": .string(good)])
        expectRefused(try await stack.link(login.accessToken, LinkIdentityBody(provider: "kakao", idToken: token, nonce: good)), NonceRefusal.unknown)
        let linked = try await stack.link(login.accessToken, LinkIdentityBody(provider: "kakao", idToken: token, nonce: good, deviceId: "device-1"))
        #expect(linked.status == 200, "body: \(linked.text)")
        expectRefused(try await stack.link(login.accessToken, LinkIdentityBody(provider: "kakao", idToken: token, nonce: good, deviceId: "device-1")),
                      NonceRefusal.used)
    }

    @Test("100,000 nonces issued and never used leave the database and the memory as they were")
    func issuingKeepsNothing() async throws {
        let stack = try await Self.stack.running()
        let connection = try await NATSConnection.connect(
            .init(url: stack.natsURL, name: "nonces", access: TestIdentities.access(for: .gateway)), logger: Logger(label: "nonces", level: .critical))
        try await withResource(connection, close: { await $0.drainAndClose() }) { connection in
            let client = ServiceClient(connection: connection, logger: Logger(label: "nonces", level: .critical))
            func issue(_ count: Int) async throws {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<32 {
                        group.addTask {
                            for index in stride(from: worker, to: count, by: 32) {
                                _ = try await client.call(Endpoints.issueNonce, NonceRequest(deviceId: "flood-\(index % 1_000)"), timeout: .seconds(10))
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await issue(10_000)  // Warms up the buffers and pools a first burst allocates.
            let rowsBefore = try await stack.count("SELECT count(*)::text FROM member.used_nonces")
            let before = try Self.residentBytes()
            try await issue(100_000)
            let after = try Self.residentBytes()
            #expect(try await stack.count("SELECT count(*)::text FROM member.used_nonces") == rowsBefore)
            // The whole stack runs in this process: 100,000 remembered nonces would be some 15 MB.
            #expect(after - before < 8 * 1_048_576, "resident memory grew by \((after - before) / 1_024) KiB")
        }
    }

    /// This process's resident memory (`VmRSS`), in bytes.
    static func residentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1_024
    }
}
