import Contracts
import Foundation
import Testing
@testable import MemberService

/// What a member is shown of itself (`MemberRecord.profile`): the verified-email rule and the stored preferences.
@Suite("A member's profile: its email verified only while a provider vouches for it")
struct MemberRecordTests {
    private func record(email: String?, identities: [(String?, Bool)], timezone: String? = nil, locale: String? = nil) -> MemberRecord {
        MemberRecord(memberId: 1, email: email, name: nil, pictureUrl: nil, timezone: timezone, locale: locale,
                     identities: identities.map { LinkedIdentity(provider: .google, email: $0.0, emailVerified: $0.1, linkedAt: Date()) },
                     createdAt: Date())
    }

    @Test("verified when an identity vouches for that very address")
    func vouched() {
        #expect(record(email: "a@example.com", identities: [("b@example.com", true), ("a@example.com", true)]).profile.emailVerified)
    }

    @Test("not verified when the identity with the address does not vouch, another address is vouched for, or there is none",
          arguments: [
              ("a@example.com", [("a@example.com", false)]),
              ("a@example.com", [("b@example.com", true)]),
              ("a@example.com", [(nil, true)]),
              ("A@example.com", [("a@example.com", true)]),
          ] as [(String, [(String?, Bool)])])
    func notVouched(email: String, identities: [(String?, Bool)]) {
        #expect(!record(email: email, identities: identities).profile.emailVerified)
    }

    @Test("no email is never verified")
    func noEmail() {
        #expect(!record(email: nil, identities: [(nil, true)]).profile.emailVerified)
    }

    @Test("a stored time zone or locale is shown only when it is one now, the locale in its usual case")
    func storedPreferences() {
        #expect(record(email: nil, identities: [], timezone: "Asia/Seoul", locale: "ko-kr").profile.timezone == "Asia/Seoul")
        #expect(record(email: nil, identities: [], timezone: "Asia/Seoul", locale: "ko-kr").profile.locale == "ko-KR")
        #expect(record(email: nil, identities: [], timezone: "GMT+9", locale: "not a tag!").profile.timezone == nil)
        #expect(record(email: nil, identities: [], timezone: "GMT+9", locale: "not a tag!").profile.locale == nil)
    }
}

/// A profile update (`ProfileUpdate.applying`): which fields change and which are announced.
@Suite("A profile update: what it names changes, the rest stays, and only real changes are announced")
struct ProfileUpdateTests {
    private let current = ProfileUpdate(name: "Kim", timezone: "Asia/Seoul", locale: "ko-KR")

    @Test("a field left nil stays; a name is trimmed; a locale takes its usual case; the changed fields are sorted")
    func applying() {
        let (new, changed) = current.applying(MemberUpdateRequest(memberId: 1, accessToken: "t", name: "  Lee ", locale: "EN-us"))
        #expect(new == ProfileUpdate(name: "Lee", timezone: "Asia/Seoul", locale: "en-US"))
        #expect(changed == ["locale", "name"])
    }

    @Test("the same values, after trimming and case, change nothing")
    func nothingChanged() {
        #expect(current.applying(MemberUpdateRequest(memberId: 1, accessToken: "t", name: "Kim ", timezone: "Asia/Seoul",
                                                     locale: "ko-kr")).changed.isEmpty)
    }

    @Test("canonically equivalent names are compared as bytes: é and e with U+0301 differ")
    func bytes() {
        let composed = ProfileUpdate(name: "Jos\u{E9}", timezone: nil, locale: nil)
        #expect(composed.applying(MemberUpdateRequest(memberId: 1, accessToken: "t", name: "Jose\u{301}")).changed == ["name"])
    }
}

/// What a provider and an app say of the user, as kept (`ProviderDetails`), and what an Apple notification does.
@Suite("Provider details cleaned, and Apple notifications' actions")
struct ProviderDetailsTests {
    @Test("a login keeps a real time zone and locale, drops the others and the details that are none")
    func login() {
        var identity = VerifiedIdentity(provider: .apple, subject: "s", email: "no email", name: "A\u{0}B")
        identity.pictureUrl = "javascript:alert(1)"
        let kept = ProviderDetails.cleaned(MemberLoginRequest(identity: identity, deviceId: "d", name: "Kim\n", email: "kim@example.com",
                                                              timezone: "Asia/Seoul", locale: "en_US@calendar=japanese"))
        #expect(kept.identity.email == nil && kept.identity.pictureUrl == nil && kept.identity.name?.contains("\u{0}") == false)
        #expect(kept.email == "kim@example.com" && kept.name?.contains("\n") == false)
        #expect(kept.timezone == "Asia/Seoul")
        #expect(kept.locale != "en_US@calendar=japanese")
        let dropped = ProviderDetails.cleaned(MemberLoginRequest(identity: identity, deviceId: "d", timezone: "Mars/Olympus"))
        #expect(dropped.timezone == nil)
    }

    @Test("a link's identity and app details are cleaned as a login's")
    func link() {
        let link = ProviderDetails.cleaned(LinkIdentityRequest(memberId: 1, accessToken: "t",
                                                               identity: VerifiedIdentity(provider: .kakao, subject: "s", email: "x y"),
                                                               email: "also\tnot"))
        #expect(link.identity.email == nil && link.email == nil)
    }

    @Test("consent-revoked and account-delete end the identity; email-disabled and -enabled set the flag; others change nothing")
    func appleActions() {
        #expect(AppleNotificationAction(type: "consent-revoked") == .endIdentity)
        #expect(AppleNotificationAction(type: "account-delete") == .endIdentity)
        #expect(AppleNotificationAction(type: "email-disabled") == .setEmailDisabled(true))
        #expect(AppleNotificationAction(type: "email-enabled") == .setEmailDisabled(false))
        #expect(AppleNotificationAction(type: "account-deleted") == .none)
    }
}
