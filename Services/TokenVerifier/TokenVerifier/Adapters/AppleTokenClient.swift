import HTTPClient
import JOSE
import JSON
import Logging

/// Apple's token endpoint (authorization-code exchange) and revoke endpoint, called with a
/// cached ES256 client secret through the shared HTTP client.
struct AppleTokenClient: AppleTokenEndpoint {
    let credentials: AppleCredentials
    let secrets: AppleClientSecret
    let client: HTTPClient
    let timeout: Duration
    let logger: Logger

    init(credentials: AppleCredentials, client: HTTPClient, timeout: Duration, logger: Logger) {
        self.credentials = credentials
        self.secrets = AppleClientSecret(credentials: credentials)
        self.client = client
        self.timeout = timeout
        self.logger = logger.with(["provider": "APPLE"])
    }

    /// Exchanges an authorization code issued to `clientID` for Apple's refresh token.
    func exchange(code: String, clientID: String) async -> AppleCodeExchange {
        let answer: (status: Int, body: TokenAnswer?)
        do {
            answer = try await post(credentials.tokenURL, clientID: clientID,
                                    [("code", code), ("grant_type", "authorization_code")])
        } catch {
            logger.warning("Apple code exchange failed; signing in without keeping a grant", ["error": String(describing: error)])
            return .notGranted
        }
        guard answer.status == 200, let body = answer.body, let refreshToken = body.refresh_token, !refreshToken.isEmpty else {
            let error = answer.body?.error ?? "HTTP \(answer.status)"
            if error == "invalid_client" {
                logger.error("Apple refused our client secret; check APPLE_TEAM_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_FILE",
                             ["apple.client_id": clientID])
            } else {
                logger.warning("Apple refused the authorization code; signing in without keeping a grant", ["apple.error": error])
            }
            return .notGranted
        }
        // The ID token comes straight from Apple over TLS; only its subject is read, to match the login's.
        let subject = body.id_token.flatMap { try? CompactJWS.parse($0) }.flatMap { try? JWTClaims.decode($0.payload) }?.sub
        return .granted(refreshToken: refreshToken, subject: subject)
    }

    /// Revokes a refresh token issued to `clientID`.
    func revoke(refreshToken: String, clientID: String) async -> RevocationOutcome {
        let answer: (status: Int, body: TokenAnswer?)
        do {
            answer = try await post(credentials.revokeURL, clientID: clientID,
                                    [("token", refreshToken), ("token_type_hint", "refresh_token")])
        } catch {
            logger.warning("Apple revoke call failed; will retry", ["error": String(describing: error)])
            return .retry
        }
        switch (answer.status, answer.body?.error) {
        case (200, _):
            return .done
        case (400, "invalid_grant"?), (400, "invalid_token"?):
            logger.info("Apple grant was already invalid")
            return .done
        default:
            logger.warning("Apple revoke refused; will retry",
                           ["http.status": String(answer.status), "apple.error": answer.body?.error ?? "none"])
            return .retry
        }
    }

    private func post(_ url: String, clientID: String, _ fields: [(String, String)]) async throws -> (status: Int, body: TokenAnswer?) {
        let secret = try await secrets.secret(for: clientID)
        let form = FormBody.encode([("client_id", clientID), ("client_secret", secret)] + fields)
        let response = try await client.execute(HTTPClientRequest(url: url, method: "POST",
                                                                   headers: [form.header, ("Accept", "application/json")],
                                                                   body: form.body, timeout: timeout))
        if response.status >= 500 { throw VerifierError.providerStatus(response.status) }
        return (response.status, try? MessageCoding.decode(TokenAnswer.self, from: response.body))
    }

    /// The members of Apple's token and error answers that are read.
    private struct TokenAnswer: Decodable {
        var refresh_token: String?
        var id_token: String?
        var error: String?
    }
}
