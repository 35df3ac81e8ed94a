import Contracts
import Logging

/// Revokes one provider grant of a deleted member: opens the sealed credential and calls
/// Apple's revoke or Naver's token delete. Grants that can never be revoked here (no key to open
/// them, the provider not configured, another provider) are logged and count as done.
struct GrantRevoker: Sendable {
    let sealer: CredentialSealer?
    let apple: (any AppleTokenEndpoint)?
    let naver: (any NaverTokenEndpoint)?
    let logger: Logger

    /// Revokes `grant`; `.retry` when the provider could not do it now.
    func revoke(_ grant: ProviderGrant) async -> RevocationOutcome {
        let logger = self.logger.with(["provider": grant.provider.rawValue])
        guard grant.provider == .apple || grant.provider == .naver else {
            logger.info("no revocation for this provider")
            return .done
        }
        guard let sealer else {
            logger.error("cannot revoke a grant: PROVIDER_TOKEN_KEY is not set")
            return .done
        }
        let credential: ProviderCredential
        do {
            credential = try sealer.open(grant.sealedCredential, provider: grant.provider, subject: grant.subject)
        } catch {
            logger.error("cannot revoke a grant: its credential does not open under PROVIDER_TOKEN_KEY")
            return .done
        }
        switch grant.provider {
        case .apple:
            guard let apple else {
                logger.error("cannot revoke an Apple grant: APPLE_TEAM_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_FILE are not set")
                return .done
            }
            return await apple.revoke(refreshToken: credential.token, clientID: credential.clientId)
        default:
            guard let naver else {
                logger.error("cannot revoke a Naver grant: NAVER_CLIENT_ID and NAVER_CLIENT_SECRET are not set")
                return .done
            }
            return await naver.deleteToken(credential.token)
        }
    }
}
