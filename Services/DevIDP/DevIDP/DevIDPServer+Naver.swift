import HTTPServer
import JSON

extension DevIDPServer {
    /// Naver's profile API and token endpoint, and `POST /naver/mint` (`NaverAccount` → `{"token"}`).
    static func handleNaver(_ request: HTTPRequest, _ path: [String], provider: DevIdentityProvider) async -> HTTPResponse {
        switch (request.method, path) {
        case ("POST", ["mint"]):
            guard let account = try? MessageCoding.decode(NaverAccount.self, from: request.body) else {
                return error(400, "send {\"id\": ..., \"email\": ...}")
            }
            return json(MintResponse(token: await provider.mintNaverToken(account)))
        case ("GET", ["v1", "nid", "me"]):
            let header = request.header("authorization") ?? ""
            let token = header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)) : ""
            let account = await provider.naverAccount(token: token)
            if let refusal = await outage(provider, "naver", subject: account?.id) { return refusal }
            guard let account else {
                return json(["resultcode": "024", "message": "Authentication failed"], status: 401)
            }
            if let code = account.resultcode, code != "00" {
                return json(["resultcode": code, "message": "refused"])
            }
            return json(NaverProfileAnswer(response: account))
        case (_, ["oauth2.0", "token"]):
            let fields = FormFields.of(request)
            guard fields["grant_type"] == "delete" else { return error(400, "unsupported_grant_type") }
            let token = fields["access_token"] ?? ""
            if let refusal = await outage(provider, "naver", subject: await provider.naverAccount(token: token)?.id) {
                return refusal
            }
            guard await provider.naverClientMatches(id: fields["client_id"], secret: fields["client_secret"]) else {
                return error(401, "invalid_client")
            }
            guard await provider.deleteNaverToken(token) else {
                return json(["error": "invalid_request", "error_description": "no valid data in session"])
            }
            return json(["access_token": token, "result": "success"])
        default:
            return HTTPResponse(status: 404)
        }
    }

    /// 503 after the configured delay when the provider (or this user of it) is down; nil when it answers.
    static func outage(_ provider: DevIdentityProvider, _ name: String, subject: String?) async -> HTTPResponse? {
        let behaviour = await provider.behaviour(name, subject: subject)
        if behaviour.delay > .zero { try? await Task.sleep(for: behaviour.delay) }
        return behaviour.available ? nil : error(503, "temporarily_unavailable")
    }
}

/// Naver's profile answer.
private struct NaverProfileAnswer: Encodable {
    var resultcode = "00"
    var message = "success"
    let response: NaverAccount

    enum CodingKeys: String, CodingKey { case resultcode, message, response }
}
