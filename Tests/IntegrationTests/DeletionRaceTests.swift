import Contracts
import Foundation
import Testing
import TestSupport

/// A deleted member stays deleted: a login that races the account deletion leaves no session that
/// works once the deletion has answered. The login may land before the deletion (it then gets the
/// old member, whose session the deletion ends), after it (a new member: the identity is free
/// again), or in between (the issuer refuses to start a session for the deleted member).
@Suite("Deletion races")
struct DeletionRaceTests {
    @Test("50 logins racing the deletion of their member: once the deletion answered, no token of that member works")
    func loginRacesDeletion() async throws {
        let stack = try await TestStack.shared.running()
        var landedOnDeleted = 0
        for round in 0..<50 {
            let sub = RunningStack.uniqueSubject("race")
            let phone = try await stack.googleSession(sub: sub, deviceId: "phone")
            // The login starts first; the deletion follows within a few milliseconds, so across the
            // rounds it meets the login at each of its steps (verify, find the member, start the session).
            let delay = Duration.microseconds(Int64(round % 10) * 500)
            async let racing = stack.googleLogin(sub: sub, deviceId: "tablet")
            async let deletion: APIResponse = {
                try await Task.sleep(for: delay)  // the stagger that moves the race across the login's steps
                return try await stack.deleteAccount(phone.accessToken)
            }()
            let (login, deleted) = try await (racing, deletion)
            #expect(deleted.status == 204, "round \(round): \(deleted.text)")
            #expect([200, 401].contains(login.status), "round \(round): \(login.text)")

            var sessions = [phone]
            if login.status == 200, let tablet = try? login.data(LoginResponse.self), tablet.memberId == phone.memberId {
                sessions.append(tablet)
                landedOnDeleted += 1
            }
            for session in sessions {
                let me = try await stack.me(session.accessToken)
                #expect(me.status == 401, "round \(round): a deleted member's access token got \(me.status)")
                let refreshed = try await stack.refresh(session.refreshToken)
                #expect(refreshed.status == 401, "round \(round): a deleted member's refresh token got \(refreshed.status)")
            }
        }
        // Not a condition (timing decides it), but it says whether the dangerous order happened.
        print("deletion races: \(landedOnDeleted) of 50 logins got the member being deleted")
    }

    @Test("a refresh racing the deletion leaves no working refresh token")
    func refreshRacesDeletion() async throws {
        let stack = try await TestStack.shared.running()
        for round in 0..<20 {
            let phone = try await stack.googleSession(sub: RunningStack.uniqueSubject("race"), deviceId: "phone")
            async let racing = stack.refresh(phone.refreshToken)
            async let deletion = stack.deleteAccount(phone.accessToken)
            let (refreshed, deleted) = try await (racing, deletion)
            #expect(deleted.status == 204, "round \(round): \(deleted.text)")
            var tokens = [phone.refreshToken]
            if refreshed.status == 200, let successor = try? refreshed.data(LoginResponse.self) { tokens.append(successor.refreshToken) }
            for token in tokens {
                let again = try await stack.refresh(token)
                #expect(again.status == 401, "round \(round): a deleted member's refresh token got \(again.status)")
            }
        }
    }

    @Test("the order the races depend on, made certain: once the issuer knows of the deletion, it starts no session for the member")
    func noSessionAfterTheIssuerKnows() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        // The control: before, the issuer starts a session for the member.
        _ = try await stack.call(Endpoints.issueTokens, IssueTokensRequest(memberId: login.memberId, deviceId: "before", provider: .google))
        let ended = try await stack.call(Endpoints.endDeletedMember, DeletedMemberRequest(memberId: login.memberId))
        #expect(ended.sessionIds.count == 2)
        await #expect { _ = try await stack.call(Endpoints.issueTokens, IssueTokensRequest(memberId: login.memberId, deviceId: "after", provider: .google)) }
            throws: { ($0 as? ServiceFailure)?.code == .unauthorized }
        #expect(try await stack.post("/api/auth/refresh", json: ["refreshToken": login.refreshToken]).status == 401)
    }
}
