import Contracts
import Foundation
import JOSE

/// Proves one OpenID Connect provider's ID tokens: signature against the provider's keys,
/// then the claims and the nonce (SPEC section 3).
struct OIDCVerifier: Sendable {
    let configuration: OIDCProviderConfiguration
    let keys: JWKSCache
    let clockSkew: Duration

    /// The identity the token proves, or the failure to answer with.
    func verify(token: String, nonce: String?, now: Date = Date()) async throws(ServiceFailure) -> VerifiedIdentity {
        let jws: CompactJWS
        do {
            jws = try CompactJWS.parse(token, maxLength: 8192)
        } catch {
            throw Self.failure(error)
        }
        let keySet: VerificationKeySet
        do {
            keySet = try await keys.keys(for: jws.header.kid)
        } catch {
            throw ServiceFailure(.providerUnavailable, "\(configuration.provider) could not be reached to check the token; try again.")
        }
        let claims: JWTClaims
        do {
            try jws.verify(with: keySet, allowed: configuration.algorithms)
            claims = try JWTClaims.decode(jws.payload)
            let rules = ClaimRules(issuers: configuration.issuers, audiences: configuration.clientIDs, leeway: clockSkew)
            try rules.check(claims, now: now)
            try NonceCheck.check(tokenNonce: claims.nonce, requestNonce: nonce, mode: configuration.nonceMode,
                                 allowTokenNonceWithoutRequest: configuration.allowsTokenNonceWithoutRequest)
        } catch {
            throw Self.failure(error)
        }
        guard let subject = claims.sub else { throw Self.failure(.missingClaim("sub")) }
        return VerifiedIdentity(provider: configuration.provider, subject: subject, email: claims.email,
                                emailVerified: claims.emailVerified, isPrivateEmail: claims.isPrivateEmail,
                                name: claims.name)
    }

    /// The answer for a JOSE failure: what the caller can act on, without internals.
    static func failure(_ error: JOSEError) -> ServiceFailure {
        switch error {
        case .expired:
            ServiceFailure(.providerTokenExpired, "The provider token has expired; sign in with the provider again.")
        case .nonceMismatch, .nonceMissing:
            ServiceFailure(.nonceMismatch, "The token's nonce does not match the nonce sent.")
        default:
            ServiceFailure(.invalidProviderToken, "The provider token is not valid (\(error.code)).")
        }
    }
}
