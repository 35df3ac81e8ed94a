import Contracts
import Crypto
import Foundation
import JOSE
import Testing
import TestSupport

/// Refresh tokens rotate on every use; a reused one ends the session, except inside the
/// grace window where a duplicate concurrent refresh gets the same successor.
@Suite("Refresh token rotation")
struct RefreshTests {
    @Test("each refresh rotates the refresh token and keeps the member")
    func rotates() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let first = try await stack.refresh(login.refreshToken)
        #expect(first.status == 200, "body: \(first.text)")
        let rotated = try first.data(LoginResponse.self)
        #expect(rotated.refreshToken != login.refreshToken)
        #expect(rotated.memberId == login.memberId)
        #expect(rotated.isExistingMember == true)
        let second = try await stack.refresh(rotated.refreshToken)
        #expect(second.status == 200)
        #expect(try second.data(LoginResponse.self).refreshToken != rotated.refreshToken)
    }

    @Test("two concurrent refreshes inside the grace window get the same successor, which works")
    func concurrentDuplicate() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        async let a = stack.refresh(login.refreshToken)
        async let b = stack.refresh(login.refreshToken)
        let (ra, rb) = try await (a, b)
        #expect(ra.status == 200 && rb.status == 200, "\(ra.text) / \(rb.text)")
        let successor = try ra.data(LoginResponse.self).refreshToken
        #expect(try rb.data(LoginResponse.self).refreshToken == successor)
        #expect(try await stack.refresh(successor).status == 200)
    }

    @Test("a rotated token used after the grace window ends the session")
    func reuseEndsSession() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let successor = try await stack.refresh(login.refreshToken).data(LoginResponse.self).refreshToken
        // The reuse grace passes (a wall-clock rule; a longer wait is still past it).
        try await Task.sleep(for: TestStack.reuseGrace + .milliseconds(1500))

        let reuse = try await stack.refresh(login.refreshToken)
        #expect(reuse.status == 401)
        #expect(reuse.failure?.code == .refreshTokenReused)
        // The session is over: its newest token is refused too.
        let after = try await stack.refresh(successor)
        #expect(after.status == 401)
        #expect(after.failure?.code == .invalidRefreshToken)
    }

    @Test("a refresh token of the release before generations refreshes through the gateway into a generation, and its successor is refreshed in turn; used again then, it is a reuse")
    func legacyToken() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        // A session as the token-issuer of the release before started it: only its first token's hash kept, no secret.
        let bytes = SecureRandom.bytes(32)
        let legacy = Base64URL.encode(bytes)
        let started = try await stack.rows("""
            SELECT issuer.start_session(p_member => \(login.memberId), p_device => 'legacy-device', p_provider => 'GOOGLE',
                                        p_token_hash => \(Digest.sha256(bytes)), p_ttl_seconds => 3600,
                                        p_signed_in_at => \(Int64(Date().timeIntervalSince1970)))::text AS id
            """)
        let sessionId = try #require(started.first?["id"])

        let first = try await stack.post("/api/auth/refresh", json: RefreshBody(refreshToken: legacy, deviceId: "legacy-device"))
        #expect(first.status == 200, "body: \(first.text)")
        let rotated = try first.data(LoginResponse.self)
        #expect(rotated.memberId == login.memberId && rotated.isExistingMember)
        #expect(rotated.refreshToken.hasPrefix("\(sessionId).1."), "not a token of generation 1 of the session: \(rotated.refreshToken.prefix(40))")
        #expect(try await stack.get("/api/members/me", bearer: rotated.accessToken).status == 200)
        // A duplicate inside the window gets the same successor.
        #expect(try await stack.refresh(legacy).data(LoginResponse.self).refreshToken == rotated.refreshToken)

        let next = try await stack.refresh(rotated.refreshToken)
        #expect(next.status == 200, "body: \(next.text)")
        let reuse = try await stack.refresh(legacy)
        #expect(reuse.status == 401 && reuse.failure?.code == .refreshTokenReused, "body: \(reuse.text)")
        let after = try await stack.refresh(try next.data(LoginResponse.self).refreshToken)
        #expect(after.status == 401 && after.failure?.code == .invalidRefreshToken, "the session outlived the reuse: \(after.text)")
    }

    @Test("unknown and malformed refresh tokens are refused", arguments: ["", "not-a-token", String(repeating: "A", count: 43)])
    func unknown(_ token: String) async throws {
        let stack = try await TestStack.shared.running()
        let response = try await stack.refresh(token)
        #expect(response.status == (token.isEmpty ? 400 : 401), "body: \(response.text)")
        #expect(response.failure?.code == (token.isEmpty ? .invalidRequest : .invalidRefreshToken))
    }

    @Test("a new login on the same device replaces that device's session")
    func sameDeviceReplaces() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()
        let first = try await stack.googleSession(sub: sub, deviceId: "phone")
        let other = try await stack.googleSession(sub: sub, deviceId: "tablet")
        let second = try await stack.googleSession(sub: sub, deviceId: "phone")
        #expect(try await stack.refresh(first.refreshToken).failure?.code == .invalidRefreshToken)
        #expect(try await stack.refresh(second.refreshToken).status == 200)
        #expect(try await stack.refresh(other.refreshToken).status == 200)
    }
}
