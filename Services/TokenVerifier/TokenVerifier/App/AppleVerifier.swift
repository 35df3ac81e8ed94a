import Contracts
import Logging

/// Proves Sign in with Apple identity tokens (the OpenID Connect rules, nonce = SHA-256 hex of
/// `rawNonce`), and when the app sends an authorization code and Apple credentials are set,
/// exchanges it and returns Apple's refresh token sealed, for revocation on account deletion.
///
/// A failed exchange does not fail the login when the identity token verified: the member signs
/// in without a kept grant (Apple down, or the code refused, is logged at warning). A code whose
/// ID token names another user is refused.
struct AppleVerifier: ProviderTokenVerifier {
    let oidc: OIDCVerifier
    let tokens: (any AppleTokenEndpoint)?
    let sealer: CredentialSealer?
    let logger: Logger

    func verify(_ request: VerifyRequest) async throws(ServiceFailure) -> VerifiedIdentity {
        let claims = try await oidc.checkedClaims(token: request.token, nonce: request.nonce)
        var identity = oidc.identity(from: claims)
        guard let code = request.authorizationCode, !code.isEmpty, let tokens, let sealer,
              let clientID = claims.aud.first(where: oidc.configuration.clientIDs.contains) else {
            return identity
        }
        guard case .granted(let refreshToken, let subject) = await tokens.exchange(code: code, clientID: clientID) else {
            return identity
        }
        if let subject, subject != identity.subject {
            throw ServiceFailure(.invalidProviderToken, "The authorization code was not issued to the identity token's user.")
        }
        do {
            identity.sealedCredential = try sealer.seal(ProviderCredential(clientId: clientID, token: refreshToken),
                                                        provider: .apple, subject: identity.subject)
        } catch {
            logger.error("sealing Apple's refresh token failed", ["error": String(describing: error)])
        }
        return identity
    }
}
