import Contracts
import Foundation
import Testing
import TestSupport

/// Find-or-create under concurrency (docs/api.md, "Logins"): concurrent first logins of one identity make
/// exactly one member, and every caller gets its ID.
@Suite("Concurrent first logins")
struct MemberConcurrencyTests {
    @Test("50 concurrent first logins of one identity: one member, one isExistingMember false, one member.created")
    func fiftyFirstLogins() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("race")
        let token = try await stack.googleToken(sub: sub)
        let answers = try await withThrowingTaskGroup(of: APIResponse.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await stack.post("/api/auth/google-login", json: GoogleLoginBody(idToken: token, deviceId: "device-\(index)"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.status == 200 }, "statuses: \(answers.map(\.status)) \(answers.first { $0.status != 200 }?.text ?? "")")
        let logins = try answers.map { try $0.data(LoginResponse.self) }
        #expect(Set(logins.map(\.memberId)).count == 1)
        #expect(logins.filter { !$0.isExistingMember }.count == 1)

        let members = try await stack.count(
            "SELECT count(DISTINCT member_id)::text FROM member.identities WHERE provider = 'GOOGLE' AND provider_user_id = \(sub)")
        #expect(members == 1)
        let memberId = try #require(logins.first?.memberId)
        let created = try await stack.events(Events.memberCreated, timeout: .seconds(10)) { $0.memberId == memberId }
        #expect(created.count == 1)
        #expect(created.first?.data.provider == .google)
    }

    @Test("every login publishes member.logged-in, saying whether the member existed")
    func loggedInEvents() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()
        let first = try await stack.googleSession(sub: sub)
        _ = try await stack.googleSession(sub: sub)
        let events = try await stack.events(Events.memberLoggedIn, count: 2) { $0.memberId == first.memberId }
        #expect(events.map(\.data.isExistingMember).sorted { !$0 && $1 } == [false, true])
        #expect(events.allSatisfy { $0.type == "member.logged-in" && $0.data.provider == .google })
        // Published from the outbox, whose rows go once JetStream acknowledged them.
        #expect(try await eventually {
            try await stack.count("""
                SELECT count(*)::text FROM member.outbox WHERE convert_from(data, 'UTF8')::jsonb ->> 'memberId' = \(String(first.memberId))
                """) == 0
        })
    }
}
