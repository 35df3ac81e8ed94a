import HTTPServer
import JSON

extension DevIDPServer {
    /// Apple's token and revoke endpoints and the minting of codes and notifications; nil for
    /// the paths every OIDC issuer shares.
    static func handleApple(_ request: HTTPRequest, _ path: [String], provider: DevIdentityProvider) async -> HTTPResponse? {
        switch (request.method, path) {
        case ("POST", ["auth", "token"]):
            let fields = FormFields.of(request)
            guard fields["grant_type"] == "authorization_code" else { return error(400, "unsupported_grant_type") }
            let code = fields["code"] ?? ""
            if let refusal = await outage(provider, "apple", subject: await provider.appleCodeSubject(code)) { return refusal }
            let clientID = fields["client_id"] ?? ""
            guard await provider.appleClientSecretIsValid(fields["client_secret"] ?? "", clientID: clientID) else {
                return error(400, "invalid_client")
            }
            guard let answer = try? await provider.exchangeAppleCode(code, clientID: clientID) else {
                return error(400, "invalid_grant")
            }
            return json(answer)
        case ("POST", ["auth", "revoke"]):
            let fields = FormFields.of(request)
            let subject = await provider.appleRefreshTokenSubject(fields["token"] ?? "")
            let answer = await revokeApple(fields, subject: subject, provider: provider)
            if let subject { await provider.recordAppleRevokeCall(subject: subject, status: answer.status) }
            return answer
        case ("POST", ["mint-code"]):
            guard let mint = try? MessageCoding.decode(AppleCodeMint.self, from: request.body) else {
                return error(400, "send {\"sub\": ...} (optional: clientId)")
            }
            return json(["code": await provider.mintAppleCode(subject: mint.sub, clientID: mint.clientId)])
        case ("POST", ["mint-notification"]):
            guard let mint = try? MessageCoding.decode(AppleNotificationMint.self, from: request.body),
                  let token = try? await provider.mintAppleNotification(mint) else {
                return error(400, "send {\"type\": ..., \"sub\": ...} (optional: email, is_private_email, event_time, aud, claims)")
            }
            return json(MintResponse(token: token))
        default:
            return nil
        }
    }

    /// Apple's revoke endpoint for a refresh token of `subject` (nil: not a live token).
    private static func revokeApple(_ fields: [String: String], subject: String?, provider: DevIdentityProvider) async -> HTTPResponse {
        if let refusal = await outage(provider, "apple", subject: subject) { return refusal }
        let clientID = fields["client_id"] ?? ""
        guard await provider.appleClientSecretIsValid(fields["client_secret"] ?? "", clientID: clientID) else {
            return error(400, "invalid_client")
        }
        guard await provider.revokeAppleToken(fields["token"] ?? "", clientID: clientID) else { return error(400, "invalid_grant") }
        return HTTPResponse(status: 200)
    }
}

/// `POST /apple/mint-code`.
private struct AppleCodeMint: Decodable {
    let sub: String
    let clientId: String?
}
