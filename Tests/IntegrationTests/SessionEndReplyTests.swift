import Contracts
import Foundation
import JOSE
import JSON
import Testing
import TestSupport

/// The issuer says until when the sessions it ended have live access tokens, so a gateway keeps
/// them on its bounded ended-session list exactly that long (not a day, which would let a flood of
/// such entries push out the ones that still matter).
@Suite("Ended sessions: how long they matter")
struct SessionEndReplyTests {
    @Test("logout-all answers with the ended sessions and when their last access token expires")
    func tokensExpireAt() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let before = Date()
        let ended = try await stack.call(Endpoints.logoutAll, LogoutAllRequest(memberId: login.memberId, accessToken: login.accessToken))
        #expect(ended.sessionIds.count == 1)
        let expireAt = try #require(ended.tokensExpireAt)
        // The access token lifetime (expiresIn, the issuer's ACCESS_TOKEN_TTL) from now, to the second.
        let expected = before.addingTimeInterval(TimeInterval(login.expiresIn))
        #expect(abs(expireAt.timeIntervalSince(expected)) < 5, "\(expireAt) vs \(expected)")
    }
}

/// The issuer sends an access token's claims and `kid` beside it, so the gateway need not parse it back:
/// they must be the token's own.
@Suite("Issued tokens: the claims beside the token are its own")
struct IssuedClaimsTests {
    @Test("the claims and kid in the issuer's answer are those of the token it signed")
    func claimsMatchToken() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let pair = try await stack.call(Endpoints.issueTokens,
                                        IssueTokensRequest(memberId: login.memberId, deviceId: "claims-device", provider: .google))
        let parts = pair.accessToken.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = try MessageCoding.decode([String: String].self, from: try #require(Base64URL.decode(parts[0])))
        let claims = try MessageCoding.decode(AccessTokenClaims.self, from: try #require(Base64URL.decode(parts[1])))
        #expect(pair.claims == claims)
        #expect(pair.keyId != nil && pair.keyId == header["kid"])
        #expect(claims.sid == pair.sessionId && claims.sub == String(pair.memberId))
    }
}

/// The gateway refuses a session's access tokens from the issuer's answer to an unlink or a deletion; the
/// issuer's own consumer of `identity.unlinked` or `member.deleted` may end the sessions first, and the
/// answer must name them all the same.
@Suite("Ended sessions: the answer names them even when an event ended them first")
struct SessionEndRaceTests {
    @Test("a second end of an identity's sessions (as after the consumer's) still names them")
    func identityEndedTwice() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let request = EndIdentitySessionsRequest(memberId: login.memberId, provider: .google)
        let first = try await stack.call(Endpoints.endIdentitySessions, request)
        #expect(first.sessionIds.count == 1)
        #expect(try await stack.call(Endpoints.endIdentitySessions, request).sessionIds == first.sessionIds)
    }

    @Test("a second end of a deleted member's sessions still names them")
    func memberDeletedTwice() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let request = DeletedMemberRequest(memberId: login.memberId)
        let first = try await stack.call(Endpoints.endDeletedMember, request)
        #expect(first.sessionIds.count == 1)
        #expect(try await stack.call(Endpoints.endDeletedMember, request).sessionIds == first.sessionIds)
    }
}

/// Two attempts of one login (the gateway resends after a lost answer; the first may arrive last): both
/// carry the login's `attemptKey`, so the later one gets the session the earlier one started, and nothing
/// ends the session whose tokens the app holds.
@Suite("A login's attempts are one login")
struct LoginAttemptTests {
    @Test("a login sent twice with one attemptKey (the gateway's resend): both answers say new member, one session, one login event")
    func resentLoginIsOneLogin() async throws {
        let stack = try await TestStack.shared.running()
        let token = try await stack.googleToken(sub: RunningStack.uniqueSubject())
        let login = LoginRequest(verify: VerifyRequest(provider: .google, token: token), deviceId: "resent", attemptKey: UUID().uuidString)
        let first = try await stack.call(Endpoints.login, login)
        let resent = try await stack.call(Endpoints.login, login)
        #expect(first.isExistingMember == false && resent.isExistingMember == false)
        #expect(resent.memberId == first.memberId && resent.sessionId == first.sessionId)
        #expect(resent.refreshToken == first.refreshToken)

        // Another login of the member, then its events: the resend wrote none (the stack's one member-service
        // publishes its outbox in order, so a second event of the resend would come before the next login's).
        var next = login
        next.deviceId = "after-resend"
        next.attemptKey = UUID().uuidString
        #expect(try await stack.call(Endpoints.login, next).isExistingMember == true)
        let member = first.memberId
        let logins = try await stack.events(Events.memberLoggedIn, count: 2) { $0.memberId == member }
        #expect(logins.map(\.data.deviceId) == ["resent", "after-resend"])
        #expect(logins.map(\.data.isExistingMember) == [false, true])
    }

    @Test("the same attemptKey twice: one session, its refresh token as it stands, nothing replaced; a new login replaces it")
    func attemptsAreOneLogin() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let request = IssueTokensRequest(memberId: login.memberId, deviceId: "attempts", provider: .google, attemptKey: UUID().uuidString)
        let first = try await stack.call(Endpoints.issueTokens, request)
        // The app has the first attempt's tokens and refreshes; then the other attempt arrives.
        let rotated = try await stack.post("/api/auth/refresh", json: RefreshBody(refreshToken: first.refreshToken)).data(LoginResponse.self)
        let late = try await stack.call(Endpoints.issueTokens, request)
        #expect(late.sessionId == first.sessionId)
        // The session's token now, never the first one: that one is spent, and a use of it would be a reuse.
        #expect(late.refreshToken == rotated.refreshToken)
        let live = {
            try await stack.count("SELECT count(*)::text FROM issuer.sessions WHERE member_id = \(login.memberId) AND device_id = 'attempts' AND ended_at IS NULL")
        }
        #expect(try await live() == 1)
        let refreshed = try await stack.post("/api/auth/refresh", json: RefreshBody(refreshToken: rotated.refreshToken))
        #expect(refreshed.status == 200, "the app's rotated token: \(refreshed.text)")

        // Another login on the device (another key) replaces it, as ever.
        var next = request
        next.attemptKey = UUID().uuidString
        let replacing = try await stack.call(Endpoints.issueTokens, next)
        #expect(replacing.sessionId != first.sessionId)
        #expect(try await live() == 1)
        // An attempt of the replaced login arriving now starts nothing and ends nothing.
        do {
            _ = try await stack.call(Endpoints.issueTokens, request)
            Issue.record("an attempt of a replaced login started a session")
        } catch let failure as ServiceFailure {
            #expect(failure.code == .unauthorized)
        }
        #expect(try await stack.count("""
            SELECT count(*)::text FROM issuer.sessions WHERE id = \(try #require(UUID(uuidString: replacing.sessionId))) AND ended_at IS NULL
            """) == 1)
    }
}
