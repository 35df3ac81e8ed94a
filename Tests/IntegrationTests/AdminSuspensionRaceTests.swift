import Contracts
import Foundation
import Testing
import TestSupport

/// A suspension racing the member's own logins and refreshes (issue 32): once the suspension has answered,
/// no session of the member works. A login may land before it (its session is then ended by it), or after
/// it (the member-service or, at the last step, the issuer refuses it: 403 `MEMBER_SUSPENDED`); a refresh
/// before it rotates a token of a session it then ends, after it answers 403.
@Suite("Admin API: a suspension racing logins and refreshes")
struct AdminSuspensionRaceTests {
    @Test("a suspension racing 50 logins and refreshes of the member leaves no session that works afterwards")
    func suspensionRacesLoginsAndRefreshes() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("suspend-race")
        // 25 devices signed in, whose refresh tokens race the suspension, and 25 more devices that sign in during it.
        var sessions: [LoginResponse] = []
        for device in 0..<25 {
            sessions.append(try await stack.googleSession(sub: sub, deviceId: "old-\(device)"))
        }
        let memberId = try #require(sessions.first?.memberId)
        let token = try await stack.googleToken(sub: sub)

        let (answers, suspended) = try await withThrowingTaskGroup(of: APIResponse.self) { group in
            for (index, session) in sessions.enumerated() {
                group.addTask { try await stack.refresh(session.refreshToken) }
                group.addTask {
                    try await stack.post("/api/auth/google-login", json: GoogleLoginBody(idToken: token, deviceId: "new-\(index)"))
                }
            }
            let suspension = try await stack.admin("POST", "/admin/members/\(memberId)/suspend", json: #"{"reason": "race test"}"#)
            var answers: [APIResponse] = []
            for try await answer in group { answers.append(answer) }
            return (answers, suspension)
        }
        #expect(suspended.status == 200, "\(suspended.text)")
        #expect(answers.count == 50)
        for answer in answers {
            #expect([200, 401, 403].contains(answer.status), "\(answer.status): \(answer.text)")
            if answer.status == 403 { #expect(answer.failure?.code == .memberSuspended) }
        }

        // Every session is over: none live in the issuer's table, and every token any answer handed out is refused.
        #expect(try await stack.count("SELECT count(*)::text FROM issuer.sessions WHERE member_id = \(memberId) AND ended_at IS NULL") == 0)
        let granted = answers.filter { $0.status == 200 }.compactMap { try? $0.data(LoginResponse.self) }
        for tokens in sessions + granted {
            let refreshed = try await stack.refresh(tokens.refreshToken)
            #expect([401, 403].contains(refreshed.status), "a refresh token of the suspended member got \(refreshed.status)")
            // The issuer's list answers any token of a live session: it is refused once the gateway heard the session end.
            let listed = try await poll(timeout: .seconds(10), { try await stack.get("/api/auth/sessions", bearer: tokens.accessToken) },
                                        until: { $0.status == 401 })
            #expect(listed.status == 401, "an access token of the suspended member got \(listed.status)")
        }
    }
}
