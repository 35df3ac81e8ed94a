import Contracts
import Foundation
import Testing
import TestSupport

/// Bad input to the member endpoints gets 400 naming the field, and changes nothing in the database.
@Suite("Member endpoints refuse bad input")
struct MemberBadInputTests {
    /// What a bad request must leave alone: the member's identities and row, and the new identity.
    private func snapshot(_ stack: RunningStack, memberId: Int64, newSubject: String) async throws -> [String: String] {
        try await stack.rows("""
            SELECT (SELECT count(*) FROM member.identities WHERE member_id = \(memberId))::text AS identities,
                   (SELECT updated_at::text FROM member.members WHERE id = \(memberId)) AS updated,
                   (SELECT count(*) FROM member.identities WHERE provider_user_id = \(newSubject))::text AS new_identity
            """).first ?? [:]
    }

    @Test("linking with an unknown provider, missing or ill-typed fields, or absurd lengths", arguments: [
        ("facebook", "provider"),
        ("10 KB provider", "provider"),
        ("missing-token", "idToken"),
        ("apple-without-identity-token", "identityToken"),
        ("naver-without-access-token", "accessToken"),
        ("typed-nonce", "nonce"),
        ("long-nonce", "nonce"),
        ("long-given-name", "fullName.givenName"),
        ("typed-provider", "provider"),
        ("blank-token", "idToken"),
    ])
    func badLinkBodies(_ kind: String, _ field: String) async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let newSubject = RunningStack.uniqueSubject("new")
        let token = try await stack.googleToken(sub: newSubject)
        let appleToken = try await stack.appleToken(sub: newSubject)
        let body: String = switch kind {
        case "missing-token": #"{"provider":"google","nonce":"n"}"#
        case "apple-without-identity-token": #"{"provider":"apple","idToken":"\#(appleToken)"}"#
        case "naver-without-access-token": #"{"provider":"naver","idToken":"\#(token)"}"#
        case "typed-nonce": #"{"provider":"google","idToken":"\#(token)","nonce":5}"#
        case "long-nonce": #"{"provider":"google","idToken":"\#(token)","nonce":"\#(String(repeating: "n", count: 600))"}"#
        case "long-given-name":
            #"{"provider":"apple","identityToken":"\#(appleToken)","fullName":{"givenName":"\#(String(repeating: "x", count: 5000))"}}"#
        case "typed-provider": #"{"provider":["google"],"idToken":"\#(token)"}"#
        case "blank-token": #"{"provider":"google","idToken":"   "}"#
        case "10 KB provider": #"{"provider":"\#(String(repeating: "g", count: 10_000))","idToken":"\#(token)"}"#
        default: #"{"provider":"\#(kind)","idToken":"\#(token)"}"#
        }
        let before = try await snapshot(stack, memberId: login.memberId, newSubject: newSubject)
        let response = try await stack.post("/api/members/me/identities", body: Array(body.utf8),
                                            headers: [("Authorization", "Bearer \(login.accessToken)")])
        #expect(response.status == 400, "body: \(response.text)")
        #expect(response.failure?.code == .invalidRequest)
        #expect(response.failure?.message.contains(field) == true, "message: \(response.failure?.message ?? "")")
        #expect(try await snapshot(stack, memberId: login.memberId, newSubject: newSubject) == before)
    }

    @Test("unlinking an unknown provider gets 400 and changes nothing", arguments: ["facebook", "300 bytes", "%20"])
    func badUnlinkProvider(_ kind: String) async throws {
        let provider = kind == "300 bytes" ? String(repeating: "a", count: 300) : kind
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let before = try await snapshot(stack, memberId: login.memberId, newSubject: "-")
        let response = try await stack.unlink(login.accessToken, provider)
        #expect(response.status == 400, "body: \(response.text)")
        #expect(response.failure?.message.contains("provider") == true)
        #expect(try await snapshot(stack, memberId: login.memberId, newSubject: "-") == before)
    }

    @Test("an Apple first login with an ill-typed or absurd name creates no member", arguments: [
        (#""fullName":"Jane""#, "fullName"),
        (#""fullName":{"givenName":7}"#, "fullName.givenName"),
        (#""email":"\#(String(repeating: "e", count: 400))@example.com""#, "email"),
    ])
    func badAppleFirstLogin(_ field: String, _ named: String) async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let body = #"{"identityToken":"\#(try await stack.appleToken(sub: sub))","deviceId":"d",\#(field)}"#
        let response = try await stack.post("/api/auth/apple-login", body: Array(body.utf8))
        #expect(response.status == 400, "body: \(response.text)")
        #expect(response.failure?.message.contains(named) == true, "message: \(response.failure?.message ?? "")")
        #expect(try await stack.count("SELECT count(*)::text FROM member.identities WHERE provider_user_id = \(sub)") == 0)
    }

    @Test("an Apple notification without a usable payload gets 400", arguments: [
        #"{}"#, #"{"payload":5}"#, #"{"payload":""}"#, "20 KB payload", #"["x"]"#,
    ])
    func badNotificationBodies(_ kind: String) async throws {
        let body = kind == "20 KB payload" ? #"{"payload":"\#(String(repeating: "a", count: 20_000))"}"# : kind
        let stack = try await TestStack.shared.running()
        let response = try await stack.post("/api/auth/apple/notifications", body: Array(body.utf8))
        #expect(response.status == 400, "body: \(response.text)")
        #expect(response.failure?.code == .invalidRequest)
    }

    @Test("account deletion needs a Bearer token")
    func deletionUnauthorized() async throws {
        let stack = try await TestStack.shared.running()
        let response = try await stack.send("DELETE", "/api/members/me", headers: [("Authorization", "Bearer nonsense")])
        #expect(response.status == 401)
        #expect(response.failure?.code == .unauthorized)
    }
}
