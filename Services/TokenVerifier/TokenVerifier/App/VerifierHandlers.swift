import Contracts
import Foundation
import Messaging
import Rules

/// What the token-verifier's endpoints do. A login, a link and an Apple notification are the first hop of a
/// chain: the verifier proves the provider's token and hands what it proved to the member-service, which
/// takes these subjects from the verifier alone; the caller (the gateway) never states an identity itself.
struct VerifierHandlers: Sendable {
    let verifiers: [Provider: any ProviderTokenVerifier]
    let appleNotifications: AppleNotificationVerifier?
    /// The server nonces it issues and checks.
    let nonces: ServerNonce
    /// The providers whose logins and links need a server nonce (`REQUIRE_SERVER_NONCE`).
    let requireServerNonce: Set<Provider>

    /// A server nonce for the device: nothing is stored.
    func issueNonce(_ request: NonceRequest) throws(ServiceFailure) -> IssuedNonce {
        try Field.deviceId(request.deviceId)
        return IssuedNonce(nonce: nonces.issue(deviceId: request.deviceId, now: Int64(Date().timeIntervalSince1970)),
                           expiresIn: Int(ServerNonce.lifetime))
    }

    /// Proves a provider token and answers the identity it names.
    func verify(_ request: VerifyRequest) async throws(ServiceFailure) -> VerifiedIdentity {
        guard let verifier = verifiers[request.provider] else {
            throw ServiceFailure(.providerDisabled, "Sign-in with \(request.provider) is not enabled.")
        }
        return try await verifier.verify(request)
    }

    /// Proves the login's provider token, then hands the identity to the member-service.
    /// A provider in `REQUIRE_SERVER_NONCE` needs a server nonce of the device, which the ID token's `nonce`
    /// claim must match (the provider's verifier checks that); the member-service records it used first.
    func login(_ request: LoginRequest) async throws(ServiceFailure) -> Hop<TokenPair> {
        if let key = request.attemptKey { try LoginRequest.checkAttemptKey(key) }
        try Field.deviceId(request.deviceId)
        let nonce = try serverNonce(request.verify, deviceId: request.deviceId)
        let identity = try await verify(request.verify)
        return try .forward(to: Endpoints.memberLogin,
                            MemberLoginRequest(identity: identity, deviceId: request.deviceId, name: request.name, email: request.email,
                                               timezone: request.timezone, locale: request.locale, nonce: nonce,
                                               attemptKey: request.attemptKey, client: ClientRules.cleaned(request.client)))
    }

    /// Proves the provider token of the identity to link, then hands it, with the Bearer's access token, to
    /// the member-service, which checks that token.
    func link(_ request: LinkRequest) async throws(ServiceFailure) -> Hop<MemberProfile> {
        if let deviceId = request.deviceId { try Field.deviceId(deviceId) }
        let nonce = try serverNonce(request.verify, deviceId: request.deviceId)
        let identity = try await verify(request.verify)
        return try .forward(to: Endpoints.memberLinkIdentity,
                            LinkIdentityRequest(memberId: request.memberId, accessToken: request.accessToken, identity: identity,
                                                name: request.name, email: request.email, nonce: nonce))
    }

    /// The server nonce `verify` carries when its provider needs one: nil when it does not; else the nonce,
    /// genuine, the device's and unexpired, or 401 `INVALID_PROVIDER_TOKEN` with the reason.
    private func serverNonce(_ verify: VerifyRequest, deviceId: String?) throws(ServiceFailure) -> UsedNonce? {
        guard requireServerNonce.contains(verify.provider) else { return nil }
        guard let text = verify.nonce, !text.isEmpty else {
            throw ServiceFailure(.invalidProviderToken, "This sign-in needs a server nonce: POST /api/auth/nonce, give it to the provider's SDK, "
                                 + "and send it back as nonce (rawNonce for Apple).", reason: NonceRefusal.required)
        }
        guard let deviceId, !deviceId.isEmpty else {
            throw ServiceFailure.invalidRequest("deviceId is required with a server nonce: it is good for the device it was issued to.")
        }
        switch nonces.check(text, deviceId: deviceId, now: Int64(Date().timeIntervalSince1970)) {
        case .valid(let nonce): return nonce
        case .expired:
            throw ServiceFailure(.invalidProviderToken, "The server nonce has expired: ask for a new one.", reason: NonceRefusal.unknown)
        case .unknown:
            throw ServiceFailure(.invalidProviderToken, "The nonce is not one this server issued for this device: ask for a new one.",
                                 reason: NonceRefusal.unknown)
        }
    }

    /// Proves an Apple server-to-server notification, then hands the event to the member-service.
    func appleNotification(_ request: AppleNotificationRequest) async throws(ServiceFailure) -> Hop<AppleNotificationOutcome> {
        guard let appleNotifications else {
            throw ServiceFailure(.providerDisabled, "Sign-in with Apple is not enabled.")
        }
        return try .forward(to: Endpoints.memberAppleNotification, try await appleNotifications.verify(request))
    }
}
