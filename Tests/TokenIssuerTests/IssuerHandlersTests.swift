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
    private static let refreshKeyBytes = SecureRandom.bytes(32)
    private static let refreshKeys = RefreshTokenKeys([refreshKeyBytes])!

    init() throws {
        key = try InMemorySigningKey()
        var configuration = TokenIssuerConfiguration()
        configuration.issuer = "i"
        configuration.audience = "a"
        let set = VerificationKeySet(JWKSet(keys: [key.publicKey]))
        let proof = MemberProof(leeway: .seconds(0)) { _ in MemberProof.TrustedKeys(set: set, issuer: "i", audience: "a") }
        handlers = IssuerHandlers(repository: repository, tokens: AccessTokens(keys: key, configuration: configuration), keys: key,
                                  outbox: Wakeup(), refreshKeys: Self.refreshKeys, successorSecret: Self.secret, configuration: configuration, proof: proof,
                                  logger: Logger(label: "issuer-test", level: .critical))
    }

    /// These handlers with other refresh token keys: a replica started with another REFRESH_TOKEN_KEY_FILE.
    private func handlers(refreshKeys: RefreshTokenKeys) -> IssuerHandlers {
        IssuerHandlers(repository: handlers.repository, tokens: handlers.tokens, keys: handlers.keys, outbox: handlers.outbox,
                       refreshKeys: refreshKeys, successorSecret: Self.secret, configuration: handlers.configuration,
                       proof: handlers.proof, logger: handlers.logger)
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

    @Test("a login's resent attempt gets the session back as it stands; another login on the device replaces it")
    func loginAttempts() async throws {
        let key = UUID().uuidString
        let first = try await login(attemptKey: key)
        let resent = try await login(attemptKey: key)
        #expect(resent.sessionId == first.sessionId && resent.refreshToken == first.refreshToken)
        // Once the session has moved on, a late attempt hands out its token now, not an old one that would be a reuse.
        let rotated = try await refresh(first.refreshToken)
        let late = try await login(attemptKey: key)
        #expect(late.sessionId == first.sessionId && late.refreshToken == rotated.refreshToken)
        // A replica that signs with another key (a key rotation's step reaches the replicas seconds apart) names the
        // same session, and so replaces nothing.
        let newer = RefreshTokenKeys([Self.refreshKeyBytes, SecureRandom.bytes(32)])!
        let elsewhereKeyed = try await handlers(refreshKeys: newer).issue(IssueTokensRequest(memberId: 7, deviceId: "phone", provider: .google,
                                                                                                attemptKey: key))
        #expect(elsewhereKeyed.sessionId == first.sessionId)
        let token = try #require(newer.read(elsewhereKeyed.refreshToken))
        let expected = try #require(Self.refreshKeys.read(rotated.refreshToken))
        guard case .current(let made) = token, case .current(let wanted) = expected else { Issue.record("not tokens by generation"); return }
        #expect(made.generation == 1 && made.tag == wanted.tag)
        #expect(await repository.endReason(first.sessionId) == nil)
        // The attempt key names the session, and makes no token: the same login on another database (the same key
        // files) names the same session with other tokens, for its secret is random.
        let elsewhere = IssuerHandlers(repository: InMemorySessionRepository(reuseGrace: .seconds(10)), tokens: handlers.tokens,
                                       keys: handlers.keys, outbox: handlers.outbox, refreshKeys: Self.refreshKeys,
                                       successorSecret: Self.secret, configuration: handlers.configuration, proof: handlers.proof,
                                       logger: handlers.logger)
        let there = try await elsewhere.issue(IssueTokensRequest(memberId: 7, deviceId: "phone", provider: .google, attemptKey: key))
        #expect(there.sessionId == first.sessionId && there.refreshToken != first.refreshToken)
        let next = try await login()
        #expect(next.sessionId != first.sessionId)
        #expect(await repository.endReason(first.sessionId) == SessionEndReason.replaced.rawValue)
        let bad = await failure { _ = try await login(attemptKey: String(repeating: "k", count: 65)) }
        #expect(bad?.code == .invalidRequest)
    }

    @Test("an attempt of a login more than two minutes after its session started gets no token, and ends nothing")
    func lateLoginAttempt() async throws {
        let key = UUID().uuidString
        let first = try await login(attemptKey: key)
        await repository.advance(by: .seconds(121))
        let late = await failure { _ = try await login(attemptKey: key) }
        #expect(late?.code == .unauthorized)
        #expect(await repository.endReason(first.sessionId) == nil)
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
        let unknown = await failure { _ = try await refresh(LegacyRefreshToken.random().value) }
        #expect(unknown?.code == .invalidRefreshToken)
        let noSession = await failure { _ = try await refresh(Self.refreshKeys.token(sessionId: UUID(), tag: testTag(0), generation: 0).value) }
        #expect(noSession?.code == .invalidRefreshToken)
        let pair = try await login()
        // Fields the gateway refuses are refused here too (the issuer trusts no caller): a 400, never a failed statement.
        for device in ["a\u{0}b", String(repeating: "d", count: FieldLimits.deviceId + 1)] {
            let bad = await failure { _ = try await refresh(pair.refreshToken, device: device) }
            #expect(bad?.code == .invalidRequest)
        }
        let long = await failure { _ = try await refresh(String(repeating: "A", count: FieldLimits.refreshToken + 1)) }
        #expect(long?.code == .invalidRequest)
        let elsewhere = await failure { _ = try await refresh(pair.refreshToken, device: "tablet") }
        #expect(elsewhere?.code == .invalidRefreshToken)
        #expect(try await refresh(pair.refreshToken, device: "phone").sessionId == pair.sessionId)
    }

    @Test("an old generation with a bad MAC is an invalid token and ends nothing; the genuine one ends the session")
    func badMAC() async throws {
        let pair = try await login()
        let next = try await refresh(pair.refreshToken)
        _ = try await refresh(next.refreshToken)
        // Generation 0 is two behind now: genuine, it is a reuse. With a made-up MAC it is no token at all.
        let parts = pair.refreshToken.split(separator: ".")
        let forged = "\(parts[0]).0.\(parts[2]).\(String(repeating: "A", count: 43))"
        let refused = await failure { _ = try await refresh(forged) }
        #expect(refused?.code == .invalidRefreshToken)
        #expect(await repository.endReason(pair.sessionId) == nil)
        let genuine = await failure { _ = try await refresh(pair.refreshToken) }
        #expect(genuine?.code == .refreshTokenReused)
        #expect(await repository.endReason(pair.sessionId) == SessionEndReason.reuse.rawValue)
    }

    @Test("the key with a session's ID and an old token of it (its tag), but not the session's secret, makes no token: invalid, ends nothing")
    func keyWithoutSecret() async throws {
        let pair = try await login()
        let next = try await refresh(pair.refreshToken)
        let id = try #require(UUID(uuidString: pair.sessionId))
        let oldTag = try #require(Base64URL.decode(pair.refreshToken.split(separator: ".")[2]))
        for (generation, tag): (Int64, [UInt8]) in [(1, oldTag), (2, oldTag), (5, oldTag), (1, SecureRandom.bytes(RefreshTokenKeys.secretBytes)),
                                                    (2, Array(repeating: 0, count: 16))] {
            let made = Self.refreshKeys.token(sessionId: id, tag: tag, generation: generation)
            let refused = await failure { _ = try await refresh(made.value) }
            #expect(refused?.code == .invalidRefreshToken, "generation \(generation)")
        }
        #expect(await repository.endReason(pair.sessionId) == nil)
        #expect(try await refresh(next.refreshToken).sessionId == pair.sessionId)
    }

    @Test("a rotation of the refresh token key leaves every live session refreshable: old tokens read, new ones signed by the new key")
    func keyRotation() async throws {
        let before = try await login(device: "a")
        let rotatedEarly = try await refresh(try await login(device: "b").refreshToken)
        let both = handlers(refreshKeys: RefreshTokenKeys([Self.refreshKeyBytes, SecureRandom.bytes(32)])!)
        for token in [before.refreshToken, rotatedEarly.refreshToken] {
            let next = try await both.refresh(RefreshTokensRequest(refreshToken: token, deviceId: nil))
            // The successor is the new key's: the new key alone reads it, and the replica with both keeps going.
            #expect(Self.refreshKeys.read(next.refreshToken) == nil)
            _ = try await both.refresh(RefreshTokensRequest(refreshToken: next.refreshToken, deviceId: nil))
        }
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

    private static let admin = AdminActor(admin: "ops@example.com", reason: "support ticket 42")

    @Test("a login keeps its app's platform and version, cleaned and cut, and the member's list shows them")
    func sessionClient() async throws {
        let pair = try await handlers.issue(IssueTokensRequest(memberId: 21, deviceId: "phone", provider: .google,
                                                               platform: "iOS\u{0}18.1\n", appVersion: String(repeating: "é", count: 40)))
        let listed = try await handlers.sessions(ListSessionsRequest(memberId: 21, accessToken: pair.accessToken)).sessions
        #expect(listed.first?.platform == "iOS 18.1")
        #expect(listed.first?.appVersion == String(repeating: "é", count: FieldLimits.appVersion / 2))
    }

    @Test("a suspension ends the member's sessions and refuses its logins and refreshes until a newer change lifts it")
    func suspension() async throws {
        let phone = try await login(31)
        let tablet = try await login(31, device: "tablet")
        let suspended = try await handlers.memberSuspension(MemberSuspensionRequest(memberId: 31, suspended: true, generation: 4))
        #expect(Set(suspended.sessionIds) == [phone.sessionId, tablet.sessionId] && suspended.tokensExpireAt != nil)
        #expect(await repository.endReason(phone.sessionId) == SessionEndReason.suspended.rawValue)
        let refused = await failure { _ = try await login(31) }
        #expect(refused == ServiceFailure.memberSuspended)
        let refresh = await failure { _ = try await self.refresh(phone.refreshToken) }
        #expect(refresh?.code == .memberSuspended && refresh?.message == "This account is suspended; contact support.")

        // Repeated (its event after the call): the same answer, nothing changed; an older lifting loses.
        let repeated = try await handlers.memberSuspension(MemberSuspensionRequest(memberId: 31, suspended: true, generation: 4))
        #expect(Set(repeated.sessionIds) == Set(suspended.sessionIds))
        #expect(try await handlers.memberSuspension(MemberSuspensionRequest(memberId: 31, suspended: false, generation: 3)).sessionIds
                == repeated.sessionIds)
        #expect(await failure { _ = try await login(31) } == ServiceFailure.memberSuspended)

        let lifted = try await handlers.memberSuspension(MemberSuspensionRequest(memberId: 31, suspended: false, generation: 5))
        #expect(lifted.sessionIds.isEmpty)
        let ended = await failure { _ = try await self.refresh(phone.refreshToken) }
        #expect(ended?.code == .invalidRefreshToken)
        #expect(try await login(31).sessionId != phone.sessionId)

        let zero = await failure { _ = try await handlers.memberSuspension(MemberSuspensionRequest(memberId: 0, suspended: true, generation: 1)) }
        let negative = await failure {
            _ = try await handlers.memberSuspension(MemberSuspensionRequest(memberId: 31, suspended: true, generation: -1))
        }
        #expect(zero?.code == .invalidRequest && negative?.code == .invalidRequest)
    }

    @Test("an admin lists a member's sessions, live and ended, for a named admin")
    func adminSessions() async throws {
        let first = try await handlers.issue(IssueTokensRequest(memberId: 41, deviceId: "phone", provider: .google, platform: "Android 15",
                                                                appVersion: "MyApp 1.0"))
        await repository.advance(by: .milliseconds(1))
        let second = try await login(41)
        let list = try await handlers.adminSessions(AdminMemberRequest(actor: AdminActor(admin: "ops"), memberId: 41)).sessions
        #expect(list.map(\.sessionId) == [second.sessionId, first.sessionId])
        #expect(list[1].platform == "Android 15" && list[1].appVersion == "MyApp 1.0" && list[1].endReason == "replaced" && list[1].provider == .google)
        for actor in [AdminActor(admin: " "), AdminActor(admin: String(repeating: "a", count: FieldLimits.adminName + 1)),
                      AdminActor(admin: "ops\n")] {
            let refused = await failure { _ = try await handlers.adminSessions(AdminMemberRequest(actor: actor, memberId: 41)) }
            #expect(refused?.code == .invalidRequest)
        }
        let zero = await failure { _ = try await handlers.adminSessions(AdminMemberRequest(actor: Self.admin, memberId: 0)) }
        #expect(zero?.code == .invalidRequest)
    }

    @Test("an admin ends a session by ID once; no such session is NOT_FOUND; the ID must be a UUID and the admin give a reason")
    func adminEndSession() async throws {
        let pair = try await login(51)
        let ended = try await handlers.adminEndSession(AdminEndSessionRequest(actor: Self.admin, sessionId: pair.sessionId.uppercased()))
        #expect(ended.memberId == 51 && ended.sessionsEnded.sessionIds == [pair.sessionId] && ended.sessionsEnded.tokensExpireAt != nil)
        #expect(await repository.endReason(pair.sessionId) == SessionEndReason.admin.rawValue)
        let again = try await handlers.adminEndSession(AdminEndSessionRequest(actor: Self.admin, sessionId: pair.sessionId))
        #expect(again.memberId == 51 && again.sessionsEnded.sessionIds.isEmpty)
        let refresh = await failure { _ = try await self.refresh(pair.refreshToken) }
        #expect(refresh?.code == .invalidRefreshToken)

        let none = await failure {
            _ = try await handlers.adminEndSession(AdminEndSessionRequest(actor: Self.admin, sessionId: UUID().uuidString))
        }
        #expect(none?.code == .notFound)
        for sessionId in ["", "not-a-uuid", "{\(pair.sessionId)}"] {
            let bad = await failure { _ = try await handlers.adminEndSession(AdminEndSessionRequest(actor: Self.admin, sessionId: sessionId)) }
            #expect(bad?.code == .invalidRequest, "\(sessionId)")
        }
        let noReason = await failure {
            _ = try await handlers.adminEndSession(AdminEndSessionRequest(actor: AdminActor(admin: "ops"), sessionId: pair.sessionId))
        }
        #expect(noReason?.code == .invalidRequest)
    }
}
