import Contracts
import Messaging

/// What the token-verifier's endpoints do. A login, a link and an Apple notification are the first hop of a
/// chain: the verifier proves the provider's token and hands what it proved to the member-service, which
/// takes these subjects from the verifier alone; the caller (the gateway) never states an identity itself.
struct VerifierHandlers: Sendable {
    let verifiers: [Provider: any ProviderTokenVerifier]
    let appleNotifications: AppleNotificationVerifier?

    /// Proves a provider token and answers the identity it names.
    func verify(_ request: VerifyRequest) async throws(ServiceFailure) -> VerifiedIdentity {
        guard let verifier = verifiers[request.provider] else {
            throw ServiceFailure(.providerDisabled, "Sign-in with \(request.provider) is not enabled.")
        }
        return try await verifier.verify(request)
    }

    /// Proves the login's provider token, then hands the identity to the member-service.
    func login(_ request: LoginRequest) async throws(ServiceFailure) -> Hop<TokenPair> {
        let identity = try await verify(request.verify)
        return try .forward(to: Endpoints.memberLogin,
                            MemberLoginRequest(identity: identity, deviceId: request.deviceId, name: request.name, email: request.email,
                                               timezone: request.timezone, locale: request.locale))
    }

    /// Proves the provider token of the identity to link, then hands it, with the Bearer's access token, to
    /// the member-service, which checks that token.
    func link(_ request: LinkRequest) async throws(ServiceFailure) -> Hop<MemberProfile> {
        let identity = try await verify(request.verify)
        return try .forward(to: Endpoints.memberLinkIdentity,
                            LinkIdentityRequest(memberId: request.memberId, accessToken: request.accessToken, identity: identity,
                                                name: request.name, email: request.email))
    }

    /// Proves an Apple server-to-server notification, then hands the event to the member-service.
    func appleNotification(_ request: AppleNotificationRequest) async throws(ServiceFailure) -> Hop<AppleNotificationOutcome> {
        guard let appleNotifications else {
            throw ServiceFailure(.providerDisabled, "Sign-in with Apple is not enabled.")
        }
        return try .forward(to: Endpoints.memberAppleNotification, try await appleNotifications.verify(request))
    }
}
