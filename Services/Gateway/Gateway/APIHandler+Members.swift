import Contracts
import HTTPServer

extension APIHandler {
    static let memberRoutes: [Route] = [
        route("GET", "/api/members/me") { handler, request, _ throws(ServiceFailure) in try await handler.me(request) },
    ]

    func me(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let claims = try await authenticate(request)
        guard let memberId = Int64(claims.sub) else { throw ServiceFailure(.unauthorized, "The access token is not valid.") }
        let profile: MemberProfile
        do {
            profile = try await services().call(Endpoints.memberGet, MemberGetRequest(memberId: memberId),
                                                timeout: configuration.serviceTimeout, retries: 1)
        } catch where error.code == .notFound {
            // The member was deleted after the token was issued.
            throw ServiceFailure(.unauthorized, "The access token's member no longer exists.")
        }
        return .data(MemberResponse(profile))
    }
}
