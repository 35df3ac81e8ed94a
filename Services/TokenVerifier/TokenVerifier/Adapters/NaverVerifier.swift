import Contracts
import HTTPClient
import JSON
import Logging
import Rules

/// Proves a Naver access token by asking Naver's profile API who it belongs to (docs/providers.md):
/// `resultcode` must be `"00"` and only `id` is required. Naver refusing the token is
/// `INVALID_PROVIDER_TOKEN`; Naver down, answering 5xx or too slowly is `PROVIDER_UNAVAILABLE`.
struct NaverVerifier: ProviderTokenVerifier {
    let configuration: NaverConfiguration
    let client: HTTPClient
    let timeout: Duration
    let sealer: CredentialSealer?
    let logger: Logger

    func verify(_ request: VerifyRequest) async throws(ServiceFailure) -> VerifiedIdentity {
        let token = request.token
        // A bearer token is visible ASCII; anything else never reaches Naver (nor a header).
        guard !token.isEmpty, token.utf8.count <= OIDCVerifier.maxTokenLength, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Self.invalid
        }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(HTTPClientRequest(
                url: configuration.profileURL,
                headers: [("Authorization", "Bearer \(token)"), ("Accept", "application/json")], timeout: timeout))
        } catch {
            logger.warning("Naver profile call failed", ["error": String(describing: error)])
            throw Self.unavailable
        }
        let answer = try? MessageCoding.decode(ProfileAnswer.self, from: response.body)
        switch response.status {
        case 200:
            break
        case 429, 500...:
            logger.warning("Naver profile API answered an error", ["http.status": String(response.status)])
            throw Self.unavailable
        default:
            logger.info("Naver refused the access token", ["http.status": String(response.status),
                                                            "naver.resultcode": answer?.resultcode ?? "none"])
            throw Self.invalid
        }
        guard let answer else {
            logger.warning("Naver profile API answered something unreadable")
            throw Self.unavailable
        }
        switch answer.resultcode {
        case "00":
            break
        case "500":
            throw Self.unavailable
        default:
            logger.info("Naver refused the access token", ["naver.resultcode": answer.resultcode ?? "none"])
            throw Self.invalid
        }
        guard let profile = answer.response, let id = profile.id, !id.isEmpty, id.utf8.count <= FieldLimits.subject,
              !id.unicodeScalars.contains(where: \.isControlCharacter) else {
            throw Self.invalid
        }
        let email = Self.nonEmpty(profile.email)
        // Naver's own API answered with the email: Naver vouches for it.
        var identity = VerifiedIdentity(provider: .naver, subject: id, email: email, emailVerified: email.map { _ in true },
                                        name: Self.nonEmpty(profile.name) ?? Self.nonEmpty(profile.nickname),
                                        pictureUrl: ProfileRules.pictureURL(profile.profile_image))
        if let sealer {
            do {
                identity.sealedCredential = try sealer.seal(ProviderCredential(clientId: configuration.clientID, token: token),
                                                            provider: .naver, subject: id)
            } catch {
                logger.error("sealing Naver's access token failed", ["error": String(describing: error)])
            }
        }
        return identity
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    static let invalid = ServiceFailure(.invalidProviderToken, "Naver does not accept the access token; sign in with Naver again.")
    static let unavailable = ServiceFailure(.providerUnavailable, "Naver could not be reached to check the token; try again.")

    /// Naver's profile answer: `{"resultcode", "message", "response": {...}}`.
    private struct ProfileAnswer: Decodable {
        var resultcode: String?
        var response: Profile?
    }

    /// The profile fields read; all but `id` optional.
    private struct Profile: Decodable {
        var id: String?
        var email: String?
        var name: String?
        var nickname: String?
        var profile_image: String?
    }
}
