import Contracts
import Foundation
import HTTPServer

extension APIHandler {
    /// Session routes (logout, logout-all, session list and deletion).
    static let sessionRoutes: [Route] = [
        route("POST", "/api/auth/logout") { handler, request, _ throws(ServiceFailure) in try await handler.logout(request) },
        route("POST", "/api/auth/logout-all") { handler, request, _ throws(ServiceFailure) in try await handler.logoutAll(request) },
        route("GET", "/api/auth/sessions") { handler, request, _ throws(ServiceFailure) in try await handler.sessions(request) },
        route("DELETE", "/api/auth/sessions/{sessionId}") { handler, request, parameters throws(ServiceFailure) in
            try await handler.deleteSession(request, sessionId: parameters["sessionId"] ?? "")
        },
    ]

    /// Ends the Bearer token's session; its access tokens are refused from now on.
    func logout(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let (claims, memberId) = try await sessionCaller(request)
        let ended = try await services().call(Endpoints.logout, LogoutRequest(memberId: memberId, sessionId: claims.sid),
                                              timeout: configuration.serviceTimeout)
        accessTokens.sessionsEnded(ended.sessionIds, tokensExpireAt: ended.tokensExpireAt)
        return .noContent
    }

    /// Ends every session of the Bearer token's member.
    func logoutAll(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let (_, memberId) = try await sessionCaller(request)
        let ended = try await services().call(Endpoints.logoutAll, LogoutAllRequest(memberId: memberId),
                                              timeout: configuration.serviceTimeout)
        accessTokens.sessionsEnded(ended.sessionIds, tokensExpireAt: ended.tokensExpireAt)
        return .noContent
    }

    /// The member's live sessions; `current` marks the Bearer token's.
    func sessions(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let (claims, memberId) = try await sessionCaller(request)
        let list = try await services().call(Endpoints.listSessions, ListSessionsRequest(memberId: memberId),
                                             timeout: configuration.serviceTimeout, retries: 1)
        return .data(list.sessions.map { SessionResponse($0, currentSessionId: claims.sid) })
    }

    /// Ends one of the member's sessions; 404 when it is not theirs, unknown or already ended.
    func deleteSession(_ request: HTTPRequest, sessionId: String) async throws(ServiceFailure) -> HTTPResponse {
        let (_, memberId) = try await sessionCaller(request)
        // Session IDs are UUIDs; anything else names no session.
        guard let uuid = UUID(uuidString: sessionId) else { throw ServiceFailure(.notFound, "No such session.") }
        let ended = try await services().call(Endpoints.endSession,
                                              EndSessionRequest(memberId: memberId, sessionId: uuid.uuidString.lowercased()),
                                              timeout: configuration.serviceTimeout)
        accessTokens.sessionsEnded(ended.sessionIds, tokensExpireAt: ended.tokensExpireAt)
        return .noContent
    }

    /// The Bearer token's claims and member ID, or 401.
    private func sessionCaller(_ request: HTTPRequest) async throws(ServiceFailure) -> (AccessTokenClaims, Int64) {
        let claims = try await authenticate(request)
        guard let memberId = Int64(claims.sub), memberId > 0 else { throw ServiceFailure(.unauthorized, "The access token is not valid.") }
        return (claims, memberId)
    }
}
