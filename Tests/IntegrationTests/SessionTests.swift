import Contracts
import Foundation
import Testing
import TestSupport

/// POST /api/auth/logout ends the Bearer's session: its refresh token at once, its access token
/// within a second or two.
@Suite("Logout")
struct LogoutTests {
    @Test("logout answers 204 and ends only this device's session")
    func logout() async throws {
        let stack = try await TestStack.shared.running()
        let (phone, tablet) = try await stack.memberOnTwoDevices()
        #expect(try await stack.get("/api/members/me", bearer: phone.accessToken).status == 200)

        let response = try await stack.send("POST", "/api/auth/logout", bearer: phone.accessToken)
        #expect(response.status == 204, "body: \(response.text)")
        #expect(response.body.isEmpty)

        let refused = try await stack.me(phone.accessToken, until: 401, timeout: .seconds(10))
        #expect(refused.status == 401)
        #expect(refused.failure?.code == .unauthorized)
        #expect(try await stack.refresh(phone.refreshToken).failure?.code == .invalidRefreshToken)
        // The other device is untouched.
        #expect(try await stack.get("/api/members/me", bearer: tablet.accessToken).status == 200)
        #expect(try await stack.refresh(tablet.refreshToken).status == 200)
    }

    @Test("logout without a valid Bearer token is 401 and ends nothing")
    func unauthenticated() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let missing = try await stack.send("POST", "/api/auth/logout")
        #expect(missing.status == 401)
        #expect(missing.failure?.code == .unauthorized)
        let forged = try await stack.send("POST", "/api/auth/logout", bearer: login.accessToken.dropLast(2) + "AA")
        #expect(forged.status == 401)
        #expect(try await stack.refresh(login.refreshToken).status == 200)
    }
}

/// POST /api/auth/logout-all ends every session of the member, on every device.
/// A gateway knows of sessions that ended before it started: it reads the stored `session.ended` events.
@Suite("Ended sessions and gateways that start later")
struct LateGatewayTests {
    @Test("a gateway started after a logout refuses that session's access token and accepts the others")
    func gatewayStartedAfterLogout() async throws {
        let stack = try await TestStack.shared.running()
        let (phone, tablet) = try await stack.memberOnTwoDevices()
        let ended = try await stack.events(Events.sessionEnded, timeout: .seconds(10), during: {
            let logout = try await stack.send("POST", "/api/auth/logout", bearer: phone.accessToken)
            #expect(logout.status == 204)
        }, until: { seen in seen.contains { $0.data.memberId == phone.memberId } })
        #expect(ended.filter { $0.data.memberId == phone.memberId }.count == 1)
        // The event reached subscribers; the gateway below reads it from the stream: wait until it is stored too.
        try #require(try await stack.event(Events.sessionEnded) { $0.memberId == phone.memberId } != nil, "the stream stored the event")

        let gateway = try await StandaloneGateway.start(natsURL: TestEnvironment.natsURL)
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            try await gateway.waitUntilConnected()
            // Its first request with a token: the gateway never saw the logout happen, only the stored event.
            let refused = try await RunningStack.send("GET", gateway.url + "/api/members/me",
                                                      headers: [("Authorization", "Bearer \(phone.accessToken)")])
            #expect(refused.status == 401, "body: \(refused.text)")
            #expect(refused.failure?.code == .unauthorized)
            let accepted = try await RunningStack.send("GET", gateway.url + "/api/members/me",
                                                       headers: [("Authorization", "Bearer \(tablet.accessToken)")])
            #expect(accepted.status == 200, "body: \(accepted.text)")
        }
    }
}

@Suite("Logout everywhere")
struct LogoutAllTests {
    @Test("logout-all ends the sessions of every device, and only this member's")
    func logoutAll() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()
        let devices = ["phone", "tablet", "laptop"]
        var logins: [LoginResponse] = []
        for device in devices {
            logins.append(try await stack.googleSession(sub: sub, deviceId: device))
        }
        let stranger = try await stack.googleSession(deviceId: "phone")

        let response = try await stack.send("POST", "/api/auth/logout-all", bearer: logins[1].accessToken)
        #expect(response.status == 204, "body: \(response.text)")

        for login in logins {
            #expect(try await stack.me(login.accessToken, until: 401, timeout: .seconds(10)).status == 401)
            #expect(try await stack.refresh(login.refreshToken).failure?.code == .invalidRefreshToken)
        }
        #expect(try await stack.get("/api/members/me", bearer: stranger.accessToken).status == 200)
        #expect(try await stack.refresh(stranger.refreshToken).status == 200)
    }
}

/// GET /api/auth/sessions lists the member's live sessions and marks the caller's; DELETE ends one.
@Suite("Session list")
struct SessionListTests {
    @Test("the list has one entry per device and marks the current one")
    func list() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()
        let phone = try await stack.googleSession(sub: sub, deviceId: "phone")
        _ = try await stack.googleLogin(sub: sub, deviceId: "tablet")
        // A second login on the phone replaces its session rather than adding one.
        let phoneAgain = try await stack.googleSession(sub: sub, deviceId: "phone")
        _ = phone

        let response = try await stack.get("/api/auth/sessions", bearer: phoneAgain.accessToken)
        #expect(response.status == 200, "body: \(response.text)")
        let sessions = try response.data([SessionResponse].self)
        #expect(sessions.map(\.deviceId).sorted() == ["phone", "tablet"])
        #expect(sessions.filter(\.current).map(\.deviceId) == ["phone"])
        for session in sessions {
            #expect(UUID(uuidString: session.sessionId) != nil)
            #expect(session.lastUsedAt >= session.createdAt)
        }
        // The wire shape: {"data": [{sessionId, deviceId, createdAt, lastUsedAt, current, platform?, appVersion?}]}; the
        // test client's User-Agent (social-login/1) names an app, no platform.
        guard case .array(let entries) = response.object?["data"], case .object(let first) = entries.first else {
            Issue.record("not a list: \(response.text)")
            return
        }
        #expect(Set(first.keys) == ["sessionId", "deviceId", "createdAt", "lastUsedAt", "current", "appVersion"])
    }

    @Test("refreshing moves lastUsedAt")
    func lastUsed() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let before = try await stack.get("/api/auth/sessions", bearer: login.accessToken).data([SessionResponse].self)
        // Time passes, so that a moved lastUsedAt can show (it is kept to the second).
        try await Task.sleep(for: .milliseconds(1100))
        let refreshed = try await stack.refresh(login.refreshToken).data(LoginResponse.self)
        let after = try await stack.get("/api/auth/sessions", bearer: refreshed.accessToken).data([SessionResponse].self)
        #expect(before.count == 1 && after.count == 1)
        #expect(after.first?.sessionId == before.first?.sessionId)
        #expect(after.first!.lastUsedAt > before.first!.lastUsedAt)
    }

    @Test("DELETE /api/auth/sessions/{id} ends that session; another member's or an unknown one is 404")
    func delete() async throws {
        let stack = try await TestStack.shared.running()
        let (phone, tablet) = try await stack.memberOnTwoDevices()
        let stranger = try await stack.googleSession()
        let sessions = try await stack.get("/api/auth/sessions", bearer: phone.accessToken).data([SessionResponse].self)
        let tabletSession = try #require(sessions.first { $0.deviceId == "tablet" })

        // Not the stranger's session: 404, and nothing ends.
        let foreign = try await stack.send("DELETE", "/api/auth/sessions/\(tabletSession.sessionId)", bearer: stranger.accessToken)
        #expect(foreign.status == 404)
        #expect(foreign.failure?.code == .notFound)
        #expect(try await stack.get("/api/members/me", bearer: tablet.accessToken).status == 200)

        for unknown in [UUID().uuidString.lowercased(), "not-a-session"] {
            let response = try await stack.send("DELETE", "/api/auth/sessions/\(unknown)", bearer: phone.accessToken)
            #expect(response.status == 404, "\(unknown): \(response.text)")
            #expect(response.failure?.code == .notFound)
        }

        let deleted = try await stack.send("DELETE", "/api/auth/sessions/\(tabletSession.sessionId)", bearer: phone.accessToken)
        #expect(deleted.status == 204, "body: \(deleted.text)")
        #expect(try await stack.me(tablet.accessToken, until: 401, timeout: .seconds(10)).status == 401)
        #expect(try await stack.refresh(tablet.refreshToken).failure?.code == .invalidRefreshToken)
        let remaining = try await stack.get("/api/auth/sessions", bearer: phone.accessToken).data([SessionResponse].self)
        #expect(remaining.map(\.deviceId) == ["phone"])
        // Ended already: 404 the second time.
        #expect(try await stack.send("DELETE", "/api/auth/sessions/\(tabletSession.sessionId)", bearer: phone.accessToken).status == 404)
    }

    @Test("the session routes need a Bearer token")
    func unauthenticated() async throws {
        let stack = try await TestStack.shared.running()
        #expect(try await stack.get("/api/auth/sessions").status == 401)
        #expect(try await stack.send("DELETE", "/api/auth/sessions/\(UUID().uuidString)").status == 401)
        #expect(try await stack.send("POST", "/api/auth/logout-all").status == 401)
    }
}
