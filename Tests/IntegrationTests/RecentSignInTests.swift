import Contracts
import Foundation
import JOSE
import JSON
import Logging
import Messaging
import NATS
import Testing
import TestSupport

/// RFC 9470 step-up: linking, unlinking and deleting the account need an access token whose session signed
/// in with its provider within `REAUTHENTICATION_WINDOW` (300 s in the stack). A stolen token reads; it
/// changes nothing that lasts. The token's `auth_time` is the session's sign-in, kept through refreshes.
///
/// A session is made old by moving its sign-in back in the database (`issuer.sessions.signed_in_at`), then
/// refreshing: the refreshed token carries the old sign-in, as a session signed in an hour ago would.
@Suite("Recent sign-in: account changes need a fresh provider sign-in")
struct RecentSignInTests {
    /// A member logged in with Google, with the claims of its access token.
    struct SignedIn {
        let login: LoginResponse
        let claims: AccessTokenClaims
        let googleSub: String
    }

    static func claims(_ accessToken: String) throws -> AccessTokenClaims {
        try MessageCoding.decode(AccessTokenClaims.self, from: try CompactJWS.parse(accessToken).payload)
    }

    static func signIn(_ stack: RunningStack, device: String = "device-1") async throws -> SignedIn {
        let sub = RunningStack.uniqueSubject("recent")
        let login = try await stack.googleSession(sub: sub, deviceId: device)
        return SignedIn(login: login, claims: try claims(login.accessToken), googleSub: sub)
    }

    /// The member's session as if it signed in `age` ago: its sign-in moved back, then refreshed; the
    /// refreshed pair.
    static func aged(_ stack: RunningStack, _ member: SignedIn, refreshToken: String? = nil) async throws -> LoginResponse {
        let moved = try await stack.rows("""
            UPDATE issuer.sessions SET signed_in_at = signed_in_at - interval '1 hour'
             WHERE id = \(try #require(UUID(uuidString: member.claims.sid))) RETURNING id::text
            """)
        #expect(moved.count == 1)
        let refreshed = try await stack.post("/api/auth/refresh", json: RefreshBody(refreshToken: refreshToken ?? member.login.refreshToken))
        #expect(refreshed.status == 200, "body: \(refreshed.text)")
        return try refreshed.data(LoginResponse.self)
    }

    /// The answer's RFC 9470 challenge and code.
    static func expectReauthentication(_ response: APIResponse, _ what: String) {
        #expect(response.status == 401, "\(what): \(response.status) \(response.text)")
        #expect(response.failure?.code == .reauthenticationRequired, "\(what): \(response.text)")
        #expect(response.headers["www-authenticate"] == #"Bearer error="insufficient_user_authentication", max_age=300"#, "\(what)")
    }

    @Test("a login's token carries auth_time, and every refresh keeps it")
    func refreshKeepsAuthTime() async throws {
        let stack = try await TestStack.shared.running()
        // The ID token is minted within the sign-in, so its iat, which auth_time is, lies between
        // these two (whole seconds, as iat is): bounds, not a tolerance a busy suite can outrun.
        let before = Int64(Date().timeIntervalSince1970.rounded(.down))
        let member = try await Self.signIn(stack)
        let after = Int64(Date().timeIntervalSince1970.rounded(.down))
        let authTime = try #require(member.claims.authTime)
        #expect(authTime >= before && authTime <= after, "auth_time \(authTime), sign-in between \(before) and \(after)")
        var refreshToken = member.login.refreshToken
        for _ in 0..<2 {
            let refreshed = try await stack.post("/api/auth/refresh", json: RefreshBody(refreshToken: refreshToken))
            #expect(refreshed.status == 200, "body: \(refreshed.text)")
            let pair = try refreshed.data(LoginResponse.self)
            let claims = try Self.claims(pair.accessToken)
            #expect(claims.authTime == authTime)
            #expect(claims.sid == member.claims.sid)
            refreshToken = pair.refreshToken
        }
        let aged = try Self.claims(try await Self.aged(stack, member, refreshToken: refreshToken).accessToken)
        #expect(aged.authTime == authTime - 3_600)
    }

    @Test("auth_time is the provider's sign-in: an ID token issued ten minutes ago signs in, but is no recent sign-in; one from the future counts as now")
    func providerSignInTime() async throws {
        let stack = try await TestStack.shared.running()
        let now = Int64(Date().timeIntervalSince1970)
        // Still unexpired: a captured token replayed later gets in, but it cannot take the account.
        let replayed = try await stack.post("/api/auth/google-login", json: GoogleLoginBody(
            idToken: try await stack.googleToken(sub: RunningStack.uniqueSubject("recent"),
                                             claims: ["iat": .integer(now - 600), "exp": .integer(now + 3_000)]),
            deviceId: "device-1"))
        #expect(replayed.status == 200, "body: \(replayed.text)")
        let login = try replayed.data(LoginResponse.self)
        #expect(try Self.claims(login.accessToken).authTime == now - 600)
        Self.expectReauthentication(try await stack.linkGoogle(login.accessToken, sub: RunningStack.uniqueSubject()), "link")
        Self.expectReauthentication(try await stack.deleteAccount(login.accessToken), "delete")
        // Nor can such a token be linked to a fresh account: its owner's next sign-in would land there.
        let fresh = try await Self.signIn(stack)
        let linkOld = try await stack.link(fresh.login.accessToken, LinkIdentityBody(provider: "kakao", idToken: try await stack.idToken(
            "kakao", sub: RunningStack.uniqueSubject("kakao"), claims: ["iat": .integer(now - 600), "exp": .integer(now + 3_000)])))
        #expect(linkOld.status == 401 && linkOld.failure?.code == .providerTokenExpired && linkOld.failure?.reason == "tooOldToLink",
                "\(linkOld.text)")
        #expect(linkOld.headers["www-authenticate"] == nil, "the session's sign-in is fresh: no challenge")
        #expect(try await stack.count("SELECT count(*)::text FROM member.identities WHERE member_id = \(fresh.login.memberId)") == 1)
        // A refresh keeps the provider's time.
        let refreshed = try await stack.post("/api/auth/refresh", json: RefreshBody(refreshToken: login.refreshToken)).data(LoginResponse.self)
        #expect(try Self.claims(refreshed.accessToken).authTime == now - 600)

        // An iat inside the clock-skew leeway, ahead of this clock: the session's sign-in is the issuer's now.
        let ahead = try await stack.post("/api/auth/google-login", json: GoogleLoginBody(
            idToken: try await stack.googleToken(sub: RunningStack.uniqueSubject("recent"), claims: ["iat": .integer(now + 30)]),
            deviceId: "device-1")).data(LoginResponse.self)
        let claims = try Self.claims(ahead.accessToken)
        #expect(try #require(claims.authTime) <= claims.iat)
        #expect(try #require(claims.authTime) >= now)
    }

    @Test("a token older than the window cannot link, unlink or delete: 401 with the challenge, and nothing changes; it still reads")
    func oldTokenChangesNothing() async throws {
        let stack = try await TestStack.shared.running()
        let member = try await Self.signIn(stack)
        // A second identity, linked while the sign-in was fresh, for the unlink to try.
        let kakaoSub = RunningStack.uniqueSubject("kakao")
        let kakao = LinkIdentityBody(provider: "kakao", idToken: try await stack.idToken("kakao", sub: kakaoSub))
        #expect(try await stack.link(member.login.accessToken, kakao).status == 200)
        let old = try await Self.aged(stack, member)

        Self.expectReauthentication(try await stack.linkGoogle(old.accessToken, sub: RunningStack.uniqueSubject()), "link")
        Self.expectReauthentication(
            try await stack.link(old.accessToken, LinkIdentityBody(provider: "apple", identityToken: try await stack.appleToken(
                sub: RunningStack.uniqueSubject("apple"))))
            , "link apple")
        Self.expectReauthentication(try await stack.unlink(old.accessToken, "kakao"), "unlink")
        Self.expectReauthentication(try await stack.deleteAccount(old.accessToken), "delete")

        let profile = try await stack.me(old.accessToken)
        #expect(profile.status == 200, "body: \(profile.text)")
        #expect(try profile.data(MemberResponse.self).identities.map(\.provider).sorted() == ["GOOGLE", "KAKAO"])
        #expect(try await stack.count("SELECT count(*)::text FROM member.members WHERE id = \(member.login.memberId)") == 1)
        #expect(try await stack.count("""
            SELECT count(*)::text FROM issuer.sessions WHERE member_id = \(member.login.memberId) AND ended_at IS NULL
            """) == 1)
    }

    @Test("the member-service, which owns the changes, refuses an old token the gateway never checked")
    func ownerChecks() async throws {
        let stack = try await TestStack.shared.running()
        let member = try await Self.signIn(stack)
        let old = try await Self.aged(stack, member)
        // Each request from the identity that may send it: the gateway deletes and unlinks, the verifier links.
        let requests: [(BusIdentity, String, [UInt8])] = [
            (.gateway, Endpoints.memberDelete.subject,
             try MessageCoding.encode(MemberDeleteRequest(memberId: member.login.memberId, accessToken: old.accessToken))),
            (.gateway, Endpoints.memberUnlinkIdentity.subject,
             try MessageCoding.encode(UnlinkIdentityRequest(memberId: member.login.memberId, accessToken: old.accessToken, provider: .google))),
            (.tokenVerifier, Endpoints.memberLinkIdentity.subject, try MessageCoding.encode(LinkIdentityRequest(
                memberId: member.login.memberId, accessToken: old.accessToken,
                identity: VerifiedIdentity(provider: .kakao, subject: RunningStack.uniqueSubject("k"))))),
        ]
        for (identity, subject, payload) in requests {
            let connection = try await NATSConnection.connect(
                .init(url: stack.natsURL, name: "recent-sign-in", access: TestIdentities.access(for: identity)),
                logger: Logger(label: "recent-sign-in", level: .critical))
            try await withResource(connection, close: { await $0.drainAndClose() }) { connection in
                // Unsealed requests of a test's own: their inbox says "probe" (SealedReplyTests looks past those).
                let inbox = "\(identity.inboxPrefix).probe.\(UUID().uuidString.lowercased())"
                let replies = try connection.subscribe(inbox)
                defer { replies.unsubscribe() }
                try await connection.flush(timeout: .seconds(5))
                try connection.publish(subject, replyTo: inbox, payload)
                let reply = try await withThrowingTaskGroup(of: NATSMessage?.self) { group in
                    group.addTask { for await message in replies { return message }; return nil }
                    group.addTask { try await Task.sleep(for: .seconds(5)); return nil }
                    defer { group.cancelAll() }
                    return try await group.next() ?? nil
                }
                let answer = try #require(reply, "\(subject): no answer")
                let decoded = try MessageCoding.decode(ServiceReply<JSONValue>.self, from: answer.payload)
                #expect(decoded.error?.code == .reauthenticationRequired, "\(subject): \(String(describing: decoded.error))")
            }
        }
        #expect(try await stack.me(old.accessToken).status == 200)
        #expect(try await stack.count("SELECT count(*)::text FROM member.identities WHERE member_id = \(member.login.memberId)") == 1)
    }

    @Test("a fresh login, on the device or through a linked identity, can link, unlink and delete")
    func freshLoginChanges() async throws {
        let stack = try await TestStack.shared.running()
        let member = try await Self.signIn(stack)
        let old = try await Self.aged(stack, member)
        let kakaoSub = RunningStack.uniqueSubject("kakao")
        let kakaoToken = { try await stack.idToken("kakao", sub: kakaoSub) }
        Self.expectReauthentication(try await stack.link(old.accessToken, LinkIdentityBody(provider: "kakao", idToken: try await kakaoToken())), "old")

        // Signing in with Google again on the device: a fresh sign-in.
        let again = try await stack.googleSession(sub: member.googleSub)
        #expect(again.memberId == member.login.memberId)
        let linked = try await stack.link(again.accessToken, LinkIdentityBody(provider: "kakao", idToken: try await kakaoToken()))
        #expect(linked.status == 200, "body: \(linked.text)")
        let unlinked = try await stack.unlink(again.accessToken, "google")
        #expect(unlinked.status == 204, "body: \(unlinked.text)")

        // Through the linked identity, on another device: fresh too, and it may delete.
        let viaKakao = try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: try await kakaoToken(), deviceId: "tablet"))
            .data(LoginResponse.self)
        #expect(viaKakao.memberId == member.login.memberId)
        let deleted = try await stack.deleteAccount(viaKakao.accessToken)
        #expect(deleted.status == 204, "body: \(deleted.text)")
    }
}
