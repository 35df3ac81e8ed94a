import Contracts
import Foundation
import HTTPAPI
import HTTPServer

extension APIHandler {
    /// Session routes (logout, logout-all, session list and deletion).
    static let sessionRoutes: [Route] = [
        authenticated("POST", "/api/auth/logout") { handler, _, member throws(ServiceFailure) in try await handler.logout(member) },
        authenticated("POST", "/api/auth/logout-all") { handler, _, member throws(ServiceFailure) in try await handler.logoutAll(member) },
        authenticated("GET", "/api/auth/sessions") { handler, _, member throws(ServiceFailure) in try await handler.sessions(member) },
        authenticated("DELETE", "/api/auth/sessions/{sessionId}") { handler, context, member throws(ServiceFailure) in
            try await handler.deleteSession(member, sessionId: context.parameter("sessionId"))
        },
    ]

    /// Ends the Bearer token's session; its access tokens are refused from now on.
    func logout(_ member: AuthenticatedMember) async throws(ServiceFailure) -> HTTPResponse {
        let ended = try await services().call(Endpoints.logout, LogoutRequest(memberId: member.id, sessionId: member.claims.sid, accessToken: member.token),
                                              timeout: configuration.serviceTimeout, retries: 0)
        accessTokens.sessionsEnded(ended.sessionIds, tokensExpireAt: ended.tokensExpireAt)
        return .noContent
    }

    /// Ends every session of the Bearer token's member.
    func logoutAll(_ member: AuthenticatedMember) async throws(ServiceFailure) -> HTTPResponse {
        let ended = try await services().call(Endpoints.logoutAll, LogoutAllRequest(memberId: member.id, accessToken: member.token),
                                              timeout: configuration.serviceTimeout, retries: 0)
        accessTokens.sessionsEnded(ended.sessionIds, tokensExpireAt: ended.tokensExpireAt)
        return .noContent
    }

    /// The member's live sessions; `current` marks the Bearer token's.
    func sessions(_ member: AuthenticatedMember) async throws(ServiceFailure) -> HTTPResponse {
        let list = try await services().call(Endpoints.listSessions, ListSessionsRequest(memberId: member.id, accessToken: member.token),
                                             timeout: configuration.serviceTimeout, retries: 1)
        return .data(list.sessions.map { SessionResponse($0, currentSessionId: member.claims.sid) })
    }

    /// Ends one of the member's sessions; 404 when it is not theirs, unknown or already ended.
    func deleteSession(_ member: AuthenticatedMember, sessionId: String) async throws(ServiceFailure) -> HTTPResponse {
        // Session IDs are UUIDs; anything else names no session.
        guard let uuid = UUID(uuidString: sessionId) else { throw ServiceFailure(.notFound, "No such session.") }
        let ended = try await services().call(Endpoints.endSession,
                                              EndSessionRequest(memberId: member.id, sessionId: uuid.uuidString.lowercased(), accessToken: member.token),
                                              timeout: configuration.serviceTimeout, retries: 0)
        accessTokens.sessionsEnded(ended.sessionIds, tokensExpireAt: ended.tokensExpireAt)
        return .noContent
    }
}
