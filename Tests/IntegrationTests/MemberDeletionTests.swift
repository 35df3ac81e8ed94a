import Contracts
import DevIDP
import Foundation
import Testing
import TestSupport

/// Account deletion in the member-service: personal data and identities gone, `member.deleted`
/// published (from the outbox, so a crash after commit loses nothing) with the grants to revoke.
@Suite("Account deletion")
struct MemberDeletionTests {
    @Test("DELETE /api/members/me deletes the member and its identities, publishes member.deleted, and answers 204 again")
    func deletes() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()
        let login = try await stack.googleSession(sub: sub)

        let response = try await stack.deleteAccount(login.accessToken)
        #expect(response.status == 204, "body: \(response.text)")
        #expect(try await stack.count("SELECT count(*)::text FROM member.members WHERE id = \(login.memberId)") == 0)
        #expect(try await stack.count("SELECT count(*)::text FROM member.identities WHERE provider_user_id = \(sub)") == 0)
        let me = try await stack.me(login.accessToken)
        #expect(me.status == 401)

        let event = try #require(try await stack.event(Events.memberDeleted) { $0.memberId == login.memberId })
        #expect(event.data == MemberDeleted(memberId: login.memberId, grants: [], reason: "requested"))
        // Deletion ended the member's sessions (the issuer consumes member.deleted): the token is refused.
        #expect(await eventually { (try? await stack.deleteAccount(login.accessToken).status) == 401 })

        // Email never merges and nothing is left: the same identity signs up afresh.
        let again = try await stack.googleSession(sub: sub)
        #expect(again.memberId != login.memberId)
        #expect(again.isExistingMember == false)
    }

    @Test("member.deleted carries every sealed provider credential the member's identities hold")
    func grants() async throws {
        let stack = try await TestStack.shared.running()
        let appleSub = RunningStack.uniqueSubject("apple")
        // The verifier seals Apple's refresh token after a code exchange; here the member-service
        // gets such an identity directly, as it would from the gateway.
        let member = try await stack.call(Endpoints.memberLogin, MemberLoginRequest(identity: VerifiedIdentity(
            provider: .apple, subject: appleSub, sealedCredential: "sealed-1-\(appleSub)"), deviceId: "test-device"))
        // A later login with a new credential replaces it; one without keeps it.
        _ = try await stack.call(Endpoints.memberLogin, MemberLoginRequest(identity: VerifiedIdentity(
            provider: .apple, subject: appleSub, sealedCredential: "sealed-2-\(appleSub)"), deviceId: "test-device"))
        _ = try await stack.call(Endpoints.memberLogin, MemberLoginRequest(identity: VerifiedIdentity(provider: .apple, subject: appleSub), deviceId: "test-device"))
        #expect(try await stack.identityRows(memberId: member.memberId)["APPLE"]?["sealed_credential"] == "sealed-2-\(appleSub)")
        let tokens = try await stack.call(Endpoints.issueTokens, IssueTokensRequest(memberId: member.memberId, deviceId: "d", provider: .apple))
        let googleSub = RunningStack.uniqueSubject()
        #expect(try await stack.linkGoogle(tokens.accessToken, sub: googleSub).status == 200)

        #expect(try await stack.deleteAccount(tokens.accessToken).status == 204)
        let event = try #require(try await stack.event(Events.memberDeleted) { $0.memberId == member.memberId })
        #expect(event.data.grants == [ProviderGrant(provider: .apple, subject: appleSub, sealedCredential: "sealed-2-\(appleSub)")])
        #expect(event.data.reason == "requested")
    }

    @Test("an event left in the outbox by a replica that died after commit is published by another")
    func outboxSurvivesCrash() async throws {
        let stack = try await TestStack.shared.running()
        let eventID = UUID().uuidString.lowercased()
        let memberId = -Int64.random(in: 1...1_000_000_000)
        let data = #"{"memberId":\#(memberId),"grants":[],"reason":"requested"}"#
        // As a crashed replica leaves it: committed, claimed once, never acknowledged.
        _ = try await stack.rows("""
            INSERT INTO member.outbox (event_id, event_type, data, attempts, available_at)
            VALUES (\(eventID), 'member.deleted', convert_to(\(data), 'UTF8'), 1, now() - interval '1 second')
            RETURNING id::text
            """)

        let event = try #require(try await stack.event(Events.memberDeleted) { $0.memberId == memberId })
        #expect(event.id == eventID)
        #expect(event.type == "member.deleted")
        #expect(try await eventually {
            try await stack.count("SELECT count(*)::text FROM member.outbox WHERE event_id = \(eventID)") == 0
        })
    }
}

/// Deletion and Apple notifications across the services: the token-verifier revokes Apple's grant
/// (retrying while Apple is down) and proves notifications; the token-issuer ends the sessions.
/// These need the verifier's and the issuer's event consumers and the dev IdP's Apple controls.
@Suite("Account deletion across services")
struct MemberDeletionAcrossServicesTests {
    private struct Notification: Codable, Sendable { var type: String; var sub: String; var email: String? }
    private struct Minted: Codable, Sendable { var token: String }


    private func notification(_ stack: RunningStack, type: String, sub: String) async throws -> String {
        let minted = try await stack.devIDP("POST", "/apple/mint-notification", json: Notification(type: type, sub: sub, email: nil))
        return try JSONDecoder().decode(Minted.self, from: Data(minted.body)).token
    }

    @Test("deletion completes while Apple's revoke endpoint is down; the grant is revoked once it is back")
    func revocationRetried() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let rawNonce = "n-\(UUID().uuidString)"
        let login = try await stack.post("/api/auth/apple-login", json: AppleLoginBody(
            identityToken: try await stack.appleToken(sub: sub, rawNonce: rawNonce), deviceId: "d",
            authorizationCode: await stack.idp.mintAppleCode(subject: sub), rawNonce: rawNonce)).data(LoginResponse.self)
        // The code exchange left Apple holding one live grant for this user, and the member holding it sealed. An
        // exchange that timed out at the verifier but was completed by Apple leaves the grant at Apple only: then
        // nothing is there to revoke, and the test stops here rather than wait for a revocation that cannot come.
        #expect(await stack.idp.appleRefreshTokens(subject: sub).count == 1)
        try #require(try await stack.identityRows(memberId: login.memberId)["APPLE"]?["sealed_credential"] != nil,
                     "the login kept no Apple grant (did the code exchange time out? see the verifier's warning)")

        // Apple is down for this user only, so suites running alongside are not disturbed.
        let down = Date()
        #expect(await stack.idp.control("apple", ProviderControl(available: false, subject: sub)))
        let deleted = try await stack.deleteAccount(login.accessToken)
        let answered = Date()
        #expect(deleted.status == 204)
        #expect(try await stack.get("/api/members/me", bearer: login.accessToken).status == 401)
        try await Task.sleep(for: .seconds(2))  // a fixed window is the check: no revocation while Apple is down
        #expect(await stack.idp.appleRefreshTokens(subject: sub).count == 1, "revoked while Apple was down?")

        let back = Date()
        #expect(await stack.idp.control("apple", ProviderControl(available: true, subject: sub)))
        let revoked = await eventually(timeout: .seconds(30)) { await stack.idp.appleRefreshTokens(subject: sub).isEmpty }
        guard !revoked else { return }
        // What happened, in seconds from Apple's return: each call at the revoke endpoint is one delivery of the event.
        let event = try await stack.event(Events.memberDeleted, timeout: .zero) { $0.memberId == login.memberId }
        let calls = await stack.idp.appleRevokeCalls(subject: sub).map { "\(Self.seconds($0.at, from: back)) \($0.status)" }
        Issue.record("""
            no revocation within 30 s of Apple's return: Apple down \(Self.seconds(down, from: back)), deletion answered \
            \(Self.seconds(answered, from: back)), event written \(event.map { "\(Self.seconds($0.occurredAt, from: back)) with \($0.data.grants.count) grant(s)" } ?? "never"), \
            revoke calls [\(calls.joined(separator: ", "))], now \(Self.seconds(Date(), from: back))
            """)
    }

    private static func seconds(_ date: Date, from origin: Date) -> String {
        let seconds = date.timeIntervalSince(origin)
        return (seconds < 0 ? "" : "+") + String(format: "%.2f s", seconds)
    }

    @Test("after deletion the old refresh token gets 401 and a new login creates a new member")
    func sessionsEnd() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()
        let login = try await stack.googleSession(sub: sub)
        #expect(try await stack.deleteAccount(login.accessToken).status == 204)
        #expect(try await eventually { try await stack.refresh(login.refreshToken).failure?.code == .invalidRefreshToken })
        let again = try await stack.googleSession(sub: sub)
        #expect(again.memberId != login.memberId)
        #expect(again.isExistingMember == false)
    }

    @Test("consent-revoked through the gateway: 200 handled, the Apple sessions end, the Google ones stay; a replay answers 200 and takes no effect")
    func consentRevoked() async throws {
        let stack = try await TestStack.shared.running()
        let googleSub = RunningStack.uniqueSubject()
        let google = try await stack.googleSession(sub: googleSub, deviceId: "tablet")
        let appleSub = RunningStack.uniqueSubject("apple")
        let rawNonce = "n-\(UUID().uuidString)"
        #expect(try await stack.link(google.accessToken, LinkIdentityBody(
            provider: "apple", identityToken: try await stack.appleToken(sub: appleSub, rawNonce: rawNonce), rawNonce: rawNonce)).status == 200)
        let apple = try await stack.appleLogin(sub: appleSub, deviceId: "phone").data(LoginResponse.self)
        #expect(apple.memberId == google.memberId)

        let payload = try await notification(stack, type: "consent-revoked", sub: appleSub)
        for _ in 0..<2 {
            let response = try await stack.postAppleNotification(payload)
            #expect(response.status == 200, "body: \(response.text)")
            #expect(try response.data(AppleNotificationResponse.self).handled == true)
        }
        // The replay (the same jti) took no effect: apple.notification was published once. A later
        // notification of the same user marks the end: the outbox publishes in order, so by the time its
        // event is out, a second consent-revoked would be too.
        let marker = try await stack.postAppleNotification(try await notification(stack, type: "email-enabled", sub: appleSub))
        #expect(marker.status == 200, "body: \(marker.text)")
        let received = try await stack.events(Events.appleNotification, count: 2) { $0.subject == appleSub }
        #expect(received.map(\.data.type) == ["consent-revoked", "email-enabled"])
        #expect(received.first?.data.memberId == google.memberId)
        #expect(try await eventually { try await stack.refresh(apple.refreshToken).status == 401 })
        #expect(try await stack.refresh(google.refreshToken).status == 200)
        #expect(try await stack.me(google.accessToken).data(MemberResponse.self).identities.map(\.provider) == ["GOOGLE"])
    }

    @Test("account-delete of the only identity deletes the member and ends its sessions")
    func accountDelete() async throws {
        let stack = try await TestStack.shared.running()
        let appleSub = RunningStack.uniqueSubject("apple")
        let login = try await stack.appleLogin(sub: appleSub).data(LoginResponse.self)
        let payload = try await notification(stack, type: "account-delete", sub: appleSub)
        let response = try await stack.postAppleNotification(payload)
        #expect(response.status == 200, "body: \(response.text)")
        #expect(try await stack.me(login.accessToken).status == 401)
        #expect(try await eventually { try await stack.refresh(login.refreshToken).failure?.code == .invalidRefreshToken })
    }

    @Test("email-disabled through the gateway updates the flag; an unknown user is handled; a bad JWS is 401")
    func emailAndBadJWS() async throws {
        let stack = try await TestStack.shared.running()
        let appleSub = RunningStack.uniqueSubject("apple")
        let login = try await stack.appleLogin(sub: appleSub, tokenEmail: "\(appleSub)@privaterelay.appleid.com").data(LoginResponse.self)
        let disabled = try await stack.postAppleNotification(try await notification(stack, type: "email-disabled", sub: appleSub))
        #expect(disabled.status == 200)
        #expect(try await stack.identityRows(memberId: login.memberId)["APPLE"]?["email_disabled"] == "true")

        let unknown = try await stack.postAppleNotification(try await notification(stack, type: "consent-revoked", sub: RunningStack.uniqueSubject("nobody")))
        #expect(unknown.status == 200)

        let forged = try await stack.postAppleNotification(try await stack.googleToken(sub: appleSub))
        #expect(forged.status == 401)
        #expect(forged.failure?.code == .invalidProviderToken)
        let garbage = try await stack.postAppleNotification("a.b.c")
        #expect(garbage.failure?.code == .invalidProviderToken)
    }
}
