import Contracts
import Foundation
import Testing
import TestSupport

/// The member-service's handling of verified Apple notifications (`auth.member.apple-notification`),
/// called over NATS as the gateway does once the token-verifier proved the JWS. The gateway path
/// end to end is in MemberDeletionTests (it needs the verifier's notification endpoint).
@Suite("Apple notifications in the member-service")
struct MemberAppleNotificationTests {
    /// A notification as the verifier passes it on: a fresh `jti`, issued now.
    private func notification(_ type: String, _ subject: String, email: String? = nil, isPrivateEmail: Bool? = nil) -> AppleNotification {
        AppleNotification(type: type, subject: subject, email: email, isPrivateEmail: isPrivateEmail,
                          jti: UUID().uuidString, issuedAt: Date())
    }

    @Test("consent-revoked ends the Apple identity of a member who has another, idempotently")
    func consentRevokedKeepsMember() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let appleSub = RunningStack.uniqueSubject("apple")
        let rawNonce = "n-\(UUID().uuidString)"
        let linked = try await stack.link(login.accessToken, LinkIdentityBody(
            provider: "apple", identityToken: try await stack.appleToken(sub: appleSub, rawNonce: rawNonce), rawNonce: rawNonce))
        #expect(linked.status == 200, "body: \(linked.text)")

        let revoked = notification("consent-revoked", appleSub)
        let outcome = try await stack.call(Endpoints.memberAppleNotification, revoked)
        #expect(outcome.decision == AppleNotificationOutcome(memberId: login.memberId, identityEnded: true, memberDeleted: false))
        #expect(try await stack.me(login.accessToken).data(MemberResponse.self).identities.map(\.provider) == ["GOOGLE"])
        let unlinked = try await stack.event(Events.identityUnlinked) { $0.memberId == login.memberId }
        #expect(unlinked?.data == IdentityUnlinked(memberId: login.memberId, provider: .apple, reason: "consent-revoked"))
        let received = try await stack.event(Events.appleNotification) { $0.subject == appleSub }
        #expect(received?.data == AppleNotificationReceived(type: "consent-revoked", subject: appleSub, memberId: login.memberId))

        // Apple sends it again: the first outcome, nothing more done.
        let again = try await stack.call(Endpoints.memberAppleNotification, revoked)
        #expect(again.decision == outcome.decision)
        // Another consent-revoked (a new jti) finds nothing left to do, still handled.
        let another = try await stack.call(Endpoints.memberAppleNotification, notification("consent-revoked", appleSub))
        #expect(another.decision == AppleNotificationOutcome(memberId: nil, memberDeleted: false))
        #expect(try await stack.me(login.accessToken).status == 200)
    }

    @Test("account-delete of a member's only identity deletes the member, without asking to revoke Apple's ended grant")
    func accountDeleteDeletesMember() async throws {
        let stack = try await TestStack.shared.running()
        let appleSub = RunningStack.uniqueSubject("apple")
        let member = try await stack.call(Endpoints.memberLogin, MemberLoginRequest(identity: VerifiedIdentity(
            provider: .apple, subject: appleSub, email: "\(appleSub)@example.com", sealedCredential: "sealed-\(appleSub)"), deviceId: "test-device"))

        let outcome = try await stack.call(Endpoints.memberAppleNotification, notification("account-delete", appleSub))
        #expect(outcome.decision == AppleNotificationOutcome(memberId: member.memberId, identityEnded: true, memberDeleted: true))
        #expect(try await stack.count("SELECT count(*)::text FROM member.members WHERE id = \(member.memberId)") == 0)
        #expect(try await stack.count("SELECT count(*)::text FROM member.identities WHERE provider_user_id = \(appleSub)") == 0)
        let unlinked = try await stack.event(Events.identityUnlinked) { $0.memberId == member.memberId }
        #expect(unlinked?.data.reason == "account-delete")
        let deleted = try await stack.event(Events.memberDeleted) { $0.memberId == member.memberId }
        #expect(deleted?.data == MemberDeleted(memberId: member.memberId, grants: [], reason: "apple-account-delete"))
    }

    @Test("email-disabled and email-enabled update the stored email flags")
    func emailFlags() async throws {
        let stack = try await TestStack.shared.running()
        let appleSub = RunningStack.uniqueSubject("apple")
        let login = try await stack.appleLogin(sub: appleSub, tokenEmail: "\(appleSub)@privaterelay.appleid.com").data(LoginResponse.self)
        #expect(try await stack.identityRows(memberId: login.memberId)["APPLE"]?["email_disabled"] == "false")

        _ = try await stack.call(Endpoints.memberAppleNotification, notification(
            "email-disabled", appleSub, email: "\(appleSub)@privaterelay.appleid.com", isPrivateEmail: true))
        let disabled = try #require(try await stack.identityRows(memberId: login.memberId)["APPLE"])
        #expect(disabled["email_disabled"] == "true")
        #expect(disabled["is_private_email"] == "true")

        _ = try await stack.call(Endpoints.memberAppleNotification, notification("email-enabled", appleSub))
        #expect(try await stack.identityRows(memberId: login.memberId)["APPLE"]?["email_disabled"] == "false")
        #expect(try await stack.me(login.accessToken).status == 200)
    }

    @Test("a notification about an unknown Apple user is handled with nothing to do")
    func unknownSubject() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("nobody")
        let outcome = try await stack.call(Endpoints.memberAppleNotification, notification("consent-revoked", sub))
        #expect(outcome.decision == AppleNotificationOutcome(memberId: nil, memberDeleted: false))
        let received = try #require(try await stack.event(Events.appleNotification) { $0.subject == sub })
        #expect(received.data.memberId == nil)
    }
}

extension AppleNotificationOutcome {
    /// What the member-service decided, without the sessions the issuer ended for it (their expiry is the
    /// moment of each answer).
    var decision: AppleNotificationOutcome {
        var outcome = self
        outcome.sessionsEnded = nil
        return outcome
    }
}
