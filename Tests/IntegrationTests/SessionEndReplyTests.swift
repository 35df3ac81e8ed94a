import Contracts
import Foundation
import Testing
import TestSupport

/// The issuer says until when the sessions it ended have live access tokens, so a gateway keeps
/// them on its bounded ended-session list exactly that long (not a day, which would let a flood of
/// such entries push out the ones that still matter).
@Suite("Ended sessions: how long they matter")
struct SessionEndReplyTests {
    @Test("logout-all answers with the ended sessions and when their last access token expires")
    func tokensExpireAt() async throws {
        let stack = try await TestStack.shared.running()
        let login = try await stack.googleLogin(sub: RunningStack.uniqueSubject()).data(LoginResponse.self)
        let before = Date()
        let ended = try await stack.call(Endpoints.logoutAll, LogoutAllRequest(memberId: login.memberId))
        #expect(ended.sessionIds.count == 1)
        let expireAt = try #require(ended.tokensExpireAt)
        // The access token lifetime (expiresIn, the issuer's ACCESS_TOKEN_TTL) from now, to the second.
        let expected = before.addingTimeInterval(TimeInterval(login.expiresIn))
        #expect(abs(expireAt.timeIntervalSince(expected)) < 5, "\(expireAt) vs \(expected)")
    }
}
