import Foundation
import SocialLoginClient
import Testing
import TestSupport

/// The member's profile through the client, against the real stack.
@Suite("Profile through the client")
struct ProfileUpdateTests {
    @Test("log in, update the profile, read it back; a field the server refuses is a typed error naming it")
    func updateAndReadBack() async throws {
        try await withSignedInClient { _, signedIn in
            let client = signedIn.client
            let before = try await client.me()
            #expect(before.timezone == "Asia/Seoul" && before.locale == "ko-KR", "the login's time zone and locale are kept")

            let updated = try await client.updateProfile(name: "Kim Minji", locale: "en-GB")
            #expect(updated.name == "Kim Minji" && updated.locale == "en-GB" && updated.timezone == "Asia/Seoul")
            #expect(try await client.me() == updated)
            let sent = try #require(signedIn.proxy.jsonBodies("PATCH /api/members/me").first)
            #expect(Set(sent.keys) == ["name", "locale"], "nil fields are left out")

            do {
                try await client.updateProfile(timezone: "GMT+9")
                Issue.record("GMT+9 was accepted")
            } catch let error as APIError {
                #expect(error.status == 400 && error.code == .invalidRequest)
                #expect(error.message.contains("timezone"))
            }
            #expect(try await client.me().timezone == "Asia/Seoul")
        }
    }
}
