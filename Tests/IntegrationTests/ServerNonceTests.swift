import Contracts
import Crypto
import Foundation
import JSON
import Testing
import TestSupport
@testable import TokenVerifier

/// `REQUIRE_SERVER_NONCE`: a login or link of a listed provider needs a nonce from `POST /api/auth/nonce`,
/// issued for the same device, unexpired, matching the ID token's `nonce`, and never used before; else 401
/// `INVALID_PROVIDER_TOKEN` with the reason. On a stack of its own whose verifier requires them of Apple
/// and Kakao (Kakao's tokens carry the nonce as it is, Apple's its SHA-256).
@Suite("Server nonces: good once, for their device", .serialized)
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
        let mismatch = try await kakaoLogin(stack, sub: sub, tokenNonce: "other", bodyNonce: good, device: "phone")
        #expect(mismatch.status == 401 && mismatch.failure?.code == .nonceMismatch, "\(mismatch.text)")
        let first = try await kakaoLogin(stack, sub: sub, tokenNonce: good, bodyNonce: good, device: "phone")
        #expect(first.status == 200, "body: \(first.text)")
        expectRefused(try await kakaoLogin(stack, sub: sub, tokenNonce: good, bodyNonce: good, device: "phone"), NonceRefusal.used)

        // Apple: the token carries the nonce's SHA-256, the body the nonce (rawNonce).
        let appleSub = RunningStack.uniqueSubject("apple")
        let appleNonce = try await nonce(stack, device: "phone")
        let apple = try await stack.post("/api/auth/apple-login", json: AppleLoginBody(
            identityToken: try await stack.appleToken(sub: appleSub, rawNonce: appleNonce), deviceId: "phone", rawNonce: appleNonce))
        #expect(apple.status == 200, "body: \(apple.text)")
        // The same Apple token and nonce again: a replay.
        expectRefused(try await stack.post("/api/auth/apple-login", json: AppleLoginBody(
            identityToken: try await stack.appleToken(sub: appleSub, rawNonce: appleNonce), deviceId: "phone", rawNonce: appleNonce)),
                      NonceRefusal.used)
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
        let login = try await stack.googleSession()
        let kakaoSub = RunningStack.uniqueSubject("kakao")
        let without = try await stack.link(login.accessToken, LinkIdentityBody(provider: "kakao", idToken: try await stack.idToken("kakao", sub: kakaoSub)))
        expectRefused(without, NonceRefusal.required)
        let good = try await nonce(stack, device: "device-1")
        let token = try await stack.idToken("kakao", sub: kakaoSub, claims: ["nonce": .string(good)])
        let noDevice = try await stack.link(login.accessToken, LinkIdentityBody(provider: "kakao", idToken: token, nonce: good))
        #expect(noDevice.status == 400, "\(noDevice.text)")
        #expect(noDevice.failure?.code == .invalidRequest && noDevice.failure?.message.contains("deviceId") == true)
        let linked = try await stack.link(login.accessToken, LinkIdentityBody(provider: "kakao", idToken: token, nonce: good, deviceId: "device-1"))
        #expect(linked.status == 200, "body: \(linked.text)")
        expectRefused(try await stack.link(login.accessToken, LinkIdentityBody(provider: "kakao", idToken: token, nonce: good, deviceId: "device-1")),
                      NonceRefusal.used)
    }

    @Test("a nonce a login spent cannot link; a link that failed spent its nonce too, so the same token cannot sign in")
    func spentAcrossCalls() async throws {
        let stack = try await Self.stack.running()
        // Spent by a login, then offered to a link by the same device.
        let member = try await stack.googleSession()
        let spent = try await nonce(stack, device: "phone")
        let kakaoSub = RunningStack.uniqueSubject("kakao")
        #expect(try await kakaoLogin(stack, sub: kakaoSub, tokenNonce: spent, bodyNonce: spent, device: "phone").status == 200)
        let reused = try await stack.link(member.accessToken, LinkIdentityBody(
            provider: "kakao", idToken: try await stack.idToken("kakao", sub: RunningStack.uniqueSubject("kakao"), claims: ["nonce": .string(spent)]),
            nonce: spent, deviceId: "phone"))
        expectRefused(reused, NonceRefusal.used)

        // A link of the identity another member holds fails (409), and its nonce is used up all the same.
        let fresh = try await nonce(stack, device: "phone")
        let token = try await stack.idToken("kakao", sub: kakaoSub, claims: ["nonce": .string(fresh)])
        let taken = try await stack.link(member.accessToken, LinkIdentityBody(provider: "kakao", idToken: token, nonce: fresh, deviceId: "phone"))
        #expect(taken.status == 409 && taken.failure?.code == .identityInUse, "\(taken.text)")
        expectRefused(try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: token, deviceId: "phone", nonce: fresh)),
                      NonceRefusal.used)
    }

    @Test("nonces issued and never used leave no row")
    func issuingKeepsNoRow() async throws {
        let stack = try await Self.stack.running()
        let rowsBefore = try await stack.count("SELECT count(*)::text FROM member.used_nonces")
        for index in 0..<200 {
            _ = try await nonce(stack, device: "flood-\(index % 10)")
        }
        #expect(try await stack.count("SELECT count(*)::text FROM member.used_nonces") == rowsBefore)
    }
}
