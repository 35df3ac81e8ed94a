import Contracts
import Foundation
import Testing
import TestSupport

/// Sign in with Apple gives the app the user's name (and email) on the first login only: it is
/// stored then, later logins without it never erase it, and a later token's email updates it.
@Suite("Apple first-login data")
struct MemberAppleFirstLoginTests {
    @Test("the name and email the app sends on the first login are kept through later logins without them")
    func keptThroughLaterLogins() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let appEmail = "\(sub)@privaterelay.appleid.com"
        let first = try await stack.appleLogin(sub: sub, fullName: PersonName(givenName: "Jane", familyName: "Appleseed"),
                                               appEmail: appEmail)
        #expect(first.status == 200, "body: \(first.text)")
        let login = try first.data(LoginResponse.self)
        #expect(login.isExistingMember == false)

        for _ in 0..<2 {
            let again = try await stack.appleLogin(sub: sub)
            #expect(try again.data(LoginResponse.self).memberId == login.memberId)
        }
        let member = try await stack.me(login.accessToken).data(MemberResponse.self)
        #expect(member.name == "Jane Appleseed")
        #expect(member.email == appEmail)
        #expect(member.identities.map(\.provider) == ["APPLE"])
        #expect(member.identities.first?.email == appEmail)
        let row = try #require(try await stack.identityRows(memberId: login.memberId)["APPLE"])
        #expect(row["name"] == "Jane Appleseed")
    }

    @Test("a later token's email replaces the stored one; the name stays")
    func laterTokenEmailUpdates() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let login = try await stack.appleLogin(sub: sub, tokenEmail: "first-\(sub)@example.com",
                                               fullName: PersonName(givenName: "Kim", familyName: "Lee")).data(LoginResponse.self)
        _ = try await stack.appleLogin(sub: sub, tokenEmail: "second-\(sub)@example.com").data(LoginResponse.self)

        let member = try await stack.me(login.accessToken).data(MemberResponse.self)
        #expect(member.email == "second-\(sub)@example.com")
        #expect(member.identities.first?.email == "second-\(sub)@example.com")
        #expect(member.name == "Kim Lee")
        let row = try #require(try await stack.identityRows(memberId: login.memberId)["APPLE"])
        #expect(row["email_verified"] == "true")
    }

    @Test("an email the app sends never replaces one a token asserted")
    func appEmailDoesNotOverrideToken() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let login = try await stack.appleLogin(sub: sub, tokenEmail: "token-\(sub)@example.com",
                                               appEmail: "app-\(sub)@example.com").data(LoginResponse.self)
        #expect(try await stack.me(login.accessToken).data(MemberResponse.self).email == "token-\(sub)@example.com")
        _ = try await stack.appleLogin(sub: sub, appEmail: "other-\(sub)@example.com").data(LoginResponse.self)
        #expect(try await stack.me(login.accessToken).data(MemberResponse.self).email == "token-\(sub)@example.com")
    }
}
