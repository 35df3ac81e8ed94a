import Contracts
import Foundation
import JSON
import Testing
import TestSupport

/// The admin-api through its own port (issue 32): each support question's answer, end to end through the
/// admin-api, NATS, the member-service and the token-issuer into PostgreSQL, and the audit trail fed from the
/// event stream.
@Suite("Admin API: support work through the admin port")
struct AdminSupportTests {
    @Test("find by identity and by email (any letter case): the member the login made")
    func finds() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("admin")
        let email = "\(sub)@Example.com"
        let login = try await stack.post("/api/auth/google-login", json: GoogleLoginBody(
            idToken: try await stack.googleToken(sub: sub, claims: ["email": .string(email), "email_verified": .bool(true)]),
            deviceId: "phone")).data(LoginResponse.self)

        let byIdentity = try await stack.admin("GET", "/admin/members?provider=google&subject=\(sub)")
        #expect(byIdentity.status == 200, "\(byIdentity.text)")
        #expect(try byIdentity.adminMembers() == [login.memberId])
        let byEmail = try await stack.admin("GET", "/admin/members?email=\(email.uppercased())")
        #expect(byEmail.status == 200, "\(byEmail.text)")
        #expect(try byEmail.adminMembers() == [login.memberId])
        let nobody = try await stack.admin("GET", "/admin/members?email=nobody-\(sub)@example.com")
        #expect(try nobody.adminMembers() == [])
        #expect(try await stack.admin("GET", "/admin/members").status == 400, "neither an identity nor an email")
        #expect(try await stack.admin("GET", "/admin/members?provider=myspace&subject=1").status == 400)
    }

    @Test("the detail view: profile, status, identities, and every session with its device, platform and app version")
    func detail() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("admin")
        let phone = try await stack.post("/api/auth/google-login", json: GoogleLoginBody(
            idToken: try await stack.googleToken(sub: sub), deviceId: "phone-1", platform: "iOS 18.1", appVersion: "Demo 2.3.1"))
            .data(LoginResponse.self)
        let userAgent = "Demo/2.4.0 (com.example.demo; build:7; iOS 17.4.1) Alamofire/5.8.0"
        _ = try await stack.post("/api/auth/google-login", json: GoogleLoginBody(idToken: try await stack.googleToken(sub: sub), deviceId: "ipad-1"),
                                 headers: [("User-Agent", userAgent)]).data(LoginResponse.self)

        let answer = try await stack.admin("GET", "/admin/members/\(phone.memberId)")
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.headers["cache-control"] == "no-store")
        let data = try #require(answer.object?["data"]?.objectValue)
        #expect(data["status"]?.stringValue == "active")
        let identities = data["identities"]?.arrayValue ?? []
        #expect(identities.compactMap { $0.objectValue?["provider"]?.stringValue } == ["GOOGLE"])
        let sessions = (data["sessions"]?.arrayValue ?? []).compactMap(\.objectValue)
        let byDevice = Dictionary(sessions.map { ($0["deviceId"]?.stringValue ?? "", $0) }) { first, _ in first }
        #expect(byDevice["phone-1"]?["platform"]?.stringValue == "iOS 18.1")
        #expect(byDevice["phone-1"]?["appVersion"]?.stringValue == "Demo 2.3.1")
        #expect(byDevice["ipad-1"]?["platform"]?.stringValue == "iOS 17.4.1", "read from the User-Agent")
        #expect(byDevice["ipad-1"]?["appVersion"]?.stringValue == "Demo 2.4.0")
        #expect(byDevice.values.allSatisfy { $0["endedAt"] == nil || $0["endedAt"] == .null })

        // The member sees the same in their own list.
        let own = try await stack.get("/api/auth/sessions", bearer: phone.accessToken)
        #expect(own.text.contains("\"platform\":\"iOS 18.1\"") || own.text.contains("\"platform\": \"iOS 18.1\""), "\(own.text)")

        #expect(try await stack.admin("GET", "/admin/members/\(RunningStack.syntheticMemberId())").status == 404)
    }

    @Test("suspend: the access token is refused, refresh and login answer 403 MEMBER_SUSPENDED; unsuspend: login works; the audit shows both with the admin and the reason")
    func suspension() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("admin")
        let login = try await stack.googleSession(sub: sub, deviceId: "phone")
        #expect(try await stack.me(login.accessToken).status == 200)

        #expect(try await stack.admin("POST", "/admin/members/\(login.memberId)/suspend", json: #"{}"#).status == 400, "a reason is required")
        let suspended = try await stack.admin("POST", "/admin/members/\(login.memberId)/suspend", json: #"{"reason": "fraud ring, case 88"}"#)
        #expect(suspended.status == 200, "\(suspended.text)")
        // The suspension answered once the sessions ended: no live session is left, and every token is refused.
        #expect(try await stack.count("SELECT count(*)::text FROM issuer.sessions WHERE member_id = \(login.memberId) AND ended_at IS NULL") == 0)
        #expect(try await stack.me(login.accessToken).status != 200)
        #expect(try await stack.me(login.accessToken, until: 401).status == 401, "every gateway refuses the ended session's token")
        let refreshed = try await stack.refresh(login.refreshToken)
        #expect(refreshed.status == 403 && refreshed.failure?.code == .memberSuspended, "\(refreshed.text)")
        let again = try await stack.googleLogin(sub: sub, deviceId: "laptop")
        #expect(again.status == 403 && again.failure?.code == .memberSuspended, "\(again.text)")
        let detail = try await stack.admin("GET", "/admin/members/\(login.memberId)")
        #expect(detail.object?["data"]?.objectValue?["status"]?.stringValue == "suspended")

        let lifted = try await stack.admin("POST", "/admin/members/\(login.memberId)/unsuspend", json: #"{"reason": "case 88 closed"}"#)
        #expect(lifted.status == 200, "\(lifted.text)")
        let back = try await stack.googleLogin(sub: sub, deviceId: "laptop")
        #expect(back.status == 200, "\(back.text)")
        #expect(try back.data(LoginResponse.self).memberId == login.memberId)
        #expect(try await stack.refresh(login.refreshToken).status == 401, "the sessions the suspension ended stay ended")

        let kinds = try await poll(timeout: .seconds(15), { try await stack.auditRecords(login.memberId) }, until: { records in
            Set(records.compactMap { $0["kind"]?.stringValue }).isSuperset(of: ["member.logged-in", "member.suspended", "member.unsuspended"])
        })
        let suspension = try #require(kinds.first { $0["kind"]?.stringValue == "member.suspended" })
        #expect(suspension["admin"]?.stringValue == TestStack.adminName)
        #expect(suspension["reason"]?.stringValue == "fraud ring, case 88")
        let lifting = try #require(kinds.first { $0["kind"]?.stringValue == "member.unsuspended" })
        #expect(lifting["reason"]?.stringValue == "case 88 closed")
        // Newest first: the laptop's login after the lifting, the phone's before the suspension.
        let logins = kinds.filter { $0["kind"]?.stringValue == "member.logged-in" }.compactMap { $0["details"]?.objectValue?["deviceId"]?.stringValue }
        #expect(logins.suffix(1) == ["phone"], "the first login's device: \(logins)")
        #expect(kinds.contains { $0["kind"]?.stringValue == "admin.suspend" }, "the admin's request itself")
    }

    @Test("admin delete: the same deletion as the member's, Apple's grant revoked at dev-idp; the export before it holds the email and devices")
    func exportAndDelete() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("apple")
        let email = "\(sub)@example.com"
        let rawNonce = "n-\(UUID().uuidString)"
        let login = try await stack.post("/api/auth/apple-login", json: AppleLoginBody(
            identityToken: try await stack.appleToken(sub: sub, email: email, rawNonce: rawNonce), deviceId: "export-phone",
            authorizationCode: await stack.idp.mintAppleCode(subject: sub), rawNonce: rawNonce, platform: "iOS 18.2"))
            .data(LoginResponse.self)
        #expect(await stack.idp.appleRefreshTokens(subject: sub).count == 1)
        try #require(try await stack.identityRows(memberId: login.memberId)["APPLE"]?["sealed_credential"] != nil,
                     "the login kept no Apple grant (did the code exchange time out?)")

        let export = try await poll(timeout: .seconds(15), { try await stack.admin("GET", "/admin/members/\(login.memberId)/export") },
                                    until: { $0.text.contains("member.logged-in") })
        #expect(export.status == 200)
        #expect(export.text.contains(email), "the export holds the email")
        #expect(export.text.contains("export-phone") && export.text.contains("iOS 18.2"), "the export holds the device")
        #expect(!export.text.contains("sealed"), "never the sealed grant: \(export.text.prefix(300))")

        #expect(try await stack.admin("DELETE", "/admin/members/\(login.memberId)", json: #"{}"#).status == 400, "a reason is required")
        let deleted = try await stack.admin("DELETE", "/admin/members/\(login.memberId)", json: #"{"reason": "erasure request 4712"}"#)
        #expect([200, 204].contains(deleted.status), "\(deleted.text)")
        #expect(try await stack.count("SELECT count(*)::text FROM member.members WHERE id = \(login.memberId)") == 0)
        #expect(try await stack.refresh(login.refreshToken).status == 401)
        let event = try #require(try await stack.event(Events.memberDeleted) { $0.memberId == login.memberId })
        #expect(event.data.reason == "admin" && event.data.actor == AdminActor(admin: TestStack.adminName, reason: "erasure request 4712"))
        #expect(await eventually(timeout: .seconds(30)) { await stack.idp.appleRefreshTokens(subject: sub).isEmpty }, "Apple's grant revoked")
        #expect(try await stack.admin("GET", "/admin/members/\(login.memberId)").status == 404)

        // The trail keeps the member ID, kinds and times, and drops the personal data.
        let scrubbed = try await poll(timeout: .seconds(15), { try await stack.admin("GET", "/admin/members/\(login.memberId)/audit?limit=500") },
                                      until: { $0.text.contains("member.deleted") && !$0.text.contains("export-phone") })
        #expect(scrubbed.text.contains("member.deleted") && !scrubbed.text.contains("export-phone"), "\(scrubbed.text.prefix(500))")
        #expect(!scrubbed.text.contains(email), "the email is gone from the trail")
        #expect(scrubbed.text.contains("member.logged-in"), "the kinds and times stay")
    }

    @Test("an admin ends one session for a reason: its tokens stop working, the member's other session goes on; without a reason, 400")
    func endsSession() async throws {
        let stack = try await TestStack.shared.running()
        let (phone, tablet) = try await stack.memberOnTwoDevices()
        let stolen = try #require(try await stack.get("/api/auth/sessions", bearer: tablet.accessToken).data([SessionResponse].self)
            .first { $0.current }?.sessionId)
        #expect(try await stack.admin("DELETE", "/admin/sessions/\(stolen)").status == 415, "a reason is required: no body is no JSON")
        #expect(try await stack.admin("DELETE", "/admin/sessions/\(stolen)", json: #"{}"#).status == 400)
        let ended = try await stack.admin("DELETE", "/admin/sessions/\(stolen)", json: #"{"reason": "ticket 4711: stolen tablet"}"#)
        #expect(ended.status == 204, "\(ended.text)")
        #expect(try await stack.refresh(tablet.refreshToken).status == 401)
        #expect(try await stack.me(tablet.accessToken, until: 401).status == 401)
        #expect(try await stack.me(phone.accessToken).status == 200, "the other session goes on")
        #expect(try await stack.admin("DELETE", "/admin/sessions/\(UUID().uuidString)", json: #"{"reason": "x"}"#).status == 404)
        // The admin's record is the member's: who ended it, and why.
        let records = try await stack.auditRecords(phone.memberId)
        let record = try #require(records.first { $0["kind"]?.stringValue == "admin.end-session" })
        #expect(record["admin"]?.stringValue == TestStack.adminName && record["reason"]?.stringValue == "ticket 4711: stolen tablet")
    }

    @Test("refusals: 401 without a token and with a wrong one; an unknown admin path is 404; /admin on the public port is 404")
    func refusals() async throws {
        let stack = try await TestStack.shared.running()
        let none = try await RunningStack.send("GET", stack.adminURL + "/admin/members?email=a@example.com")
        #expect(none.status == 401 && none.failure?.code == .unauthorized, "\(none.text)")
        let wrong = try await stack.admin("GET", "/admin/members?email=a@example.com", token: "not-\(TestStack.adminToken)")
        #expect(wrong.status == 401)
        #expect(try await stack.admin("GET", "/admin/nothing-here").status == 404)
        for path in ["/admin/members?email=a@example.com", "/admin/members/1", "/admin/openapi.json"] {
            let onPublic = try await stack.get(path, headers: [("Authorization", "Bearer \(TestStack.adminToken)")])
            #expect(onPublic.status == 404, "\(path) on the gateway: \(onPublic.status)")
        }
        let description = try await stack.admin("GET", "/admin/openapi.json")
        #expect(description.status == 200 && description.object?["openapi"]?.stringValue?.hasPrefix("3.") == true)
    }
}

extension RunningStack {
    /// Sends `method path` to the admin-api with the test admin's token (or `token`), with `json` as the body.
    func admin(_ method: String, _ path: String, json: String? = nil, token: String = TestStack.adminToken) async throws -> APIResponse {
        var headers = [("Authorization", "Bearer \(token)")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try await Self.send(method, adminURL + path, headers: headers, body: json.map { Array($0.utf8) })
    }

    /// The member's audit records, newest first (one page of up to 500).
    func auditRecords(_ memberId: Int64) async throws -> [[String: JSONValue]] {
        let answer = try await admin("GET", "/admin/members/\(memberId)/audit?limit=500")
        guard answer.status == 200 else { throw AdminAnswerError("audit: \(answer.status) \(answer.text)") }
        return (answer.object?["data"]?.objectValue?["records"]?.arrayValue ?? []).compactMap(\.objectValue)
    }
}

extension JSONValue {
    /// The members, if this is an object.
    var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    /// The elements, if this is an array.
    var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The integer, if this is one.
    var int64Value: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }
}

extension APIResponse {
    /// The member IDs of an admin search's answer.
    func adminMembers() throws -> [Int64] {
        guard status == 200 else { throw AdminAnswerError("search: \(status) \(text)") }
        return (object?["data"]?.objectValue?["members"]?.arrayValue ?? []).compactMap { $0.objectValue?["memberId"]?.int64Value }
    }
}

/// An admin answer that was not the success a helper needs.
struct AdminAnswerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
