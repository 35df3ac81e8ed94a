import Authentication
import Contracts
import Crypto
import Foundation
import JOSE
import Logging
import Runtime
import Testing
import TestSupport
@testable import TokenIssuer

/// The token-issuer's use cases on an in-memory repository and signing key: what a login, a refresh and the
/// session commands answer, and which proof each needs, in milliseconds, without PostgreSQL or NATS.
@Suite("The token-issuer's use cases, in memory")
struct IssuerHandlersTests {
    private let repository = InMemorySessionRepository(reuseGrace: .seconds(10))
    private let key: InMemorySigningKey
    private let handlers: IssuerHandlers
    private static let secret = SecureRandom.bytes(32)

    init() throws {
        key = try InMemorySigningKey()
        var configuration = TokenIssuerConfiguration()
        configuration.issuer = "i"
        configuration.audience = "a"
        let set = VerificationKeySet(JWKSet(keys: [key.publicKey]))
        let proof = MemberProof(leeway: .seconds(0)) { _ in MemberProof.TrustedKeys(set: set, issuer: "i", audience: "a") }
        handlers = IssuerHandlers(repository: repository, tokens: AccessTokens(keys: key, configuration: configuration), keys: key,
                                  outbox: Wakeup(), successorSecret: Self.secret, configuration: configuration, proof: proof,
                                  logger: Logger(label: "issuer-test", level: .critical))
    }

    private static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    private func login(_ memberId: Int64 = 7, device: String = "phone", signedInAt: Int64? = nil,
                       attemptKey: String? = nil) async throws -> TokenPair {
        try await handlers.issue(IssueTokensRequest(memberId: memberId, deviceId: device, provider: .google,
                                                    signedInAt: signedInAt, attemptKey: attemptKey))
    }

    private func refresh(_ token: String, device: String? = nil) async throws -> TokenPair {
        try await handlers.refresh(RefreshTokensRequest(refreshToken: token, deviceId: device))
    }

    @Test("a login's access token is signed by the published key, for the member and session, with the provider's sign-in")
    func loginSigns() async throws {
        let signedInAt = Self.now - 30
        let pair = try await login(signedInAt: signedInAt)
        let claims = try AccessTokenCheck(issuer: "i", audience: "a", leeway: 0)
            .claims(of: try AccessTokenCheck.parse(pair.accessToken), keys: VerificationKeySet(await key.published()), now: Self.now)
        #expect(claims.sub == "7" && claims.sid == pair.sessionId && claims.authTime == signedInAt && pair.keyId == "test-key")
        // A sign-in claimed in the future is taken as now.
        let ahead = try await login(signedInAt: Self.now + 3_600)
        #expect(try #require(ahead.claims?.authTime) <= Self.now)
    }

    @Test("a login's resent attempt gets the session back; another login on the device replaces it")
    func loginAttempts() async throws {
        let key = UUID().uuidString
        let first = try await login(attemptKey: key)
        let resent = try await login(attemptKey: key)
        #expect(resent.sessionId == first.sessionId && resent.refreshToken == first.refreshToken)
        let next = try await login()
        #expect(next.sessionId != first.sessionId)
        #expect(await repository.endReason(first.sessionId) == SessionEndReason.replaced.rawValue)
        let bad = await failure { _ = try await login(attemptKey: String(repeating: "k", count: 65)) }
        #expect(bad?.code == .invalidRequest)
    }

    @Test("a refresh rotates; its duplicate within the grace gets the same successor, after it the session ends")
    func refreshRotation() async throws {
        let pair = try await login(signedInAt: Self.now - 60)
        let rotated = try await refresh(pair.refreshToken)
        let duplicate = try await refresh(pair.refreshToken)
        #expect(rotated.refreshToken != pair.refreshToken && duplicate.refreshToken == rotated.refreshToken)
        #expect(rotated.sessionId == pair.sessionId && rotated.claims?.authTime == pair.claims?.authTime)
        await repository.advance(by: .seconds(11))
        let reused = await failure { _ = try await refresh(pair.refreshToken) }
        #expect(reused?.code == .refreshTokenReused)
        #expect(await repository.endReason(pair.sessionId) == SessionEndReason.reuse.rawValue)
        let successor = await failure { _ = try await refresh(rotated.refreshToken) }
        #expect(successor?.code == .invalidRefreshToken)
    }

    @Test("a refresh token that is none of ours, or from another device, is an invalid token")
    func refreshRefused() async throws {
        let malformed = await failure { _ = try await refresh("not-a-token") }
        #expect(malformed?.code == .invalidRefreshToken)
        let unknown = await failure { _ = try await refresh(RefreshToken.random().value) }
        #expect(unknown?.code == .invalidRefreshToken)
        let pair = try await login()
        let elsewhere = await failure { _ = try await refresh(pair.refreshToken, device: "tablet") }
        #expect(elsewhere?.code == .invalidRefreshToken)
        #expect(try await refresh(pair.refreshToken, device: "phone").sessionId == pair.sessionId)
    }

    @Test("a logout needs an access token of that very session; it ends only that one")
    func logoutOfItsSession() async throws {
        let phone = try await login()
        let tablet = try await login(device: "tablet")
        let foreign = await failure {
            _ = try await handlers.logout(LogoutRequest(memberId: 7, sessionId: tablet.sessionId, accessToken: phone.accessToken))
        }
        #expect(foreign?.code == .unauthorized)
        let ended = try await handlers.logout(LogoutRequest(memberId: 7, sessionId: phone.sessionId, accessToken: phone.accessToken))
        #expect(ended.sessionIds == [phone.sessionId])
        #expect(try await handlers.sessions(ListSessionsRequest(memberId: 7, accessToken: tablet.accessToken)).sessions.map(\.sessionId)
                == [tablet.sessionId])
    }

    @Test("a deleted member's sessions end, and no login starts one for it again")
    func deletedMember() async throws {
        let pair = try await login(99)
        let ended = try await handlers.endDeletedMember(DeletedMemberRequest(memberId: 99))
        #expect(ended.sessionIds == [pair.sessionId])
        #expect(try await handlers.endDeletedMember(DeletedMemberRequest(memberId: 99)).sessionIds == [pair.sessionId])
        let again = await failure { _ = try await login(99) }
        #expect(again?.code == .unauthorized)
        let zero = await failure { _ = try await handlers.endDeletedMember(DeletedMemberRequest(memberId: 0)) }
        #expect(zero?.code == .invalidRequest)
    }

    @Test("the ended-sessions list pages in the order sessions ended, and refuses a cursor that is no page's end")
    func endedSessionsPages() async throws {
        var ended: [String] = []
        for device in ["a", "b", "c"] {
            let pair = try await login(11, device: device)
            _ = try await handlers.logout(LogoutRequest(memberId: 11, sessionId: pair.sessionId, accessToken: pair.accessToken))
            ended.append(pair.sessionId)
            await repository.advance(by: .milliseconds(1))
        }
        let first = try await handlers.endedSessions(EndedSessionsRequest(limit: 2))
        let second = try await handlers.endedSessions(EndedSessionsRequest(after: first.next, limit: 2))
        #expect((first.sessions + second.sessions).map(\.sessionId) == ended && second.next == nil)
        let bad = await failure { _ = try await handlers.endedSessions(EndedSessionsRequest(after: "99999999999999999999:x", limit: 2)) }
        #expect(bad?.code == .invalidRequest)
    }
}
