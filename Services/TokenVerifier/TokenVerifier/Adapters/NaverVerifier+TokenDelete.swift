import HTTPClient
import JSON

extension NaverVerifier: NaverTokenEndpoint {
    /// Deletes a Naver access token (`grant_type=delete`), ending the grant. A token Naver no
    /// longer knows counts as done.
    func deleteToken(_ accessToken: String) async -> RevocationOutcome {
        let form = FormBody.encode([
            ("grant_type", "delete"), ("client_id", configuration.clientID), ("client_secret", configuration.clientSecret),
            ("access_token", accessToken), ("service_provider", "NAVER"),
        ])
        let response: HTTPClientResponse
        do {
            response = try await client.execute(HTTPClientRequest(url: configuration.tokenURL, method: "POST",
                                                                   headers: [form.header, ("Accept", "application/json")],
                                                                   body: form.body, timeout: timeout))
        } catch {
            logger.warning("Naver token delete failed; will retry", ["error": String(describing: error)])
            return .retry
        }
        let answer = try? MessageCoding.decode(DeleteAnswer.self, from: response.body)
        switch (response.status, answer?.result, answer?.error) {
        case (200, "success"?, _):
            return .done
        case (200..<500, _, "invalid_request"?), (200..<500, _, "invalid_token"?), (401, _, nil):
            logger.info("Naver grant was already invalid")
            return .done
        default:
            logger.warning("Naver token delete refused; will retry",
                           ["http.status": String(response.status), "naver.error": answer?.error ?? "none"])
            return .retry
        }
    }

    /// Naver's answer to a delete: `{"access_token", "result": "success"}` or `{"error", "error_description"}`.
    private struct DeleteAnswer: Decodable {
        var result: String?
        var error: String?
    }
}
