import Contracts
import DevIDP
import Foundation
import JSON
import Testing
import TestSupport

/// An Apple notification takes effect once per `jti`: a replay answers 200 and changes nothing.
/// An event older than the identity's link time changes nothing either. Through the gateway, as
/// an attacker who recorded a notification would send it.
@Suite("Apple notification replay")
struct AppleNotificationReplayTests {
    private func notification(_ stack: RunningStack, _ type: String, sub: String, eventTime: Date? = nil,
                              claims: [String: JSONValue]? = nil) async throws -> String {
        try await stack.idp.mintAppleNotification(AppleNotificationMint(
            type: type, sub: sub, event_time: eventTime.map { Int64($0.timeIntervalSince1970 * 1000) }, claims: claims))
    }

    @Test("an account-delete replayed after the same Apple user signed up again answers 200 and leaves the new member")
    func replayedAccountDelete() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let first = try await stack.appleLogin(sub: sub).data(LoginResponse.self)
        let payload = try await notification(stack, "account-delete", sub: sub)
        let handled = try await stack.postAppleNotification(payload)
        #expect(handled.status == 200, "body: \(handled.text)")
        #expect(try await stack.me(first.accessToken).status == 401)

        // The same Apple user signs up again: a new member.
        let second = try await stack.appleLogin(sub: sub).data(LoginResponse.self)
        #expect(second.memberId != first.memberId)
        #expect(second.isExistingMember == false)

        let replayed = try await stack.postAppleNotification(payload)
        #expect(replayed.status == 200, "body: \(replayed.text)")
        #expect(try replayed.data(AppleNotificationResponse.self).handled)
        #expect(try await stack.count("SELECT count(*)::text FROM member.members WHERE id = \(second.memberId)") == 1)
        #expect(try await stack.me(second.accessToken).data(MemberResponse.self).identities.map(\.provider) == ["APPLE"])
        #expect(try await stack.refresh(second.refreshToken).status == 200)
    }

    @Test("an event older than the identity's link time changes nothing, even under a new jti")
    func eventBeforeLink() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let login = try await stack.appleLogin(sub: sub, tokenEmail: "\(sub)@privaterelay.appleid.com").data(LoginResponse.self)
        let before = Date().addingTimeInterval(-120)

        for type in ["account-delete", "consent-revoked", "email-disabled"] {
            let response = try await stack.postAppleNotification(try await notification(stack, type, sub: sub, eventTime: before))
            #expect(response.status == 200, "\(type): \(response.text)")
        }
        #expect(try await stack.me(login.accessToken).data(MemberResponse.self).identities.map(\.provider) == ["APPLE"])
        #expect(try await stack.identityRows(memberId: login.memberId)["APPLE"]?["email_disabled"] == "false")
        #expect(try await stack.refresh(login.refreshToken).status == 200)
    }

    @Test("email-disabled replayed after email-enabled changes nothing")
    func replayedEmailFlag() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let login = try await stack.appleLogin(sub: sub, tokenEmail: "\(sub)@privaterelay.appleid.com").data(LoginResponse.self)
        let disabled = try await notification(stack, "email-disabled", sub: sub)
        #expect(try await stack.postAppleNotification(disabled).status == 200)
        #expect(try await stack.identityRows(memberId: login.memberId)["APPLE"]?["email_disabled"] == "true")
        #expect(try await stack.postAppleNotification(try await notification(stack, "email-enabled", sub: sub)).status == 200)
        #expect(try await stack.identityRows(memberId: login.memberId)["APPLE"]?["email_disabled"] == "false")

        #expect(try await stack.postAppleNotification(disabled).status == 200)
        #expect(try await stack.identityRows(memberId: login.memberId)["APPLE"]?["email_disabled"] == "false")
    }

    @Test("a notification without a jti, or older than the notification max age, is 401 and changes nothing")
    func noJTIOrTooOld() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let login = try await stack.appleLogin(sub: sub).data(LoginResponse.self)
        let old = Int64(Date().timeIntervalSince1970) - AppleNotification.maxAge.components.seconds - 600
        for claims: [String: JSONValue] in [["jti": .null], ["jti": .string("")], ["iat": .integer(old)]] {
            let response = try await stack.postAppleNotification(try await notification(stack, "account-delete", sub: sub, claims: claims))
            #expect(response.status == 401, "\(claims): \(response.text)")
            #expect(response.failure?.code == .invalidProviderToken)
        }
        #expect(try await stack.me(login.accessToken).status == 200)
    }
}
