import Contracts
import Foundation
import JOSE
import Rules

/// Proves one OpenID Connect provider's ID tokens: signature against the provider's keys,
/// then the claims and the nonce (docs/providers.md, "How ID tokens are checked").
struct OIDCVerifier: ProviderTokenVerifier {
    /// The largest token accepted (docs/providers.md).
    static let maxTokenLength = 8192

    let configuration: OIDCProviderConfiguration
    let keys: any VerificationKeySource
    let clockSkew: Duration

    /// Creates a verifier; the provider's own leeway, when configured, wins over `clockSkew`.
    init(configuration: OIDCProviderConfiguration, keys: any VerificationKeySource, clockSkew: Duration) {
        self.configuration = configuration
        self.keys = keys
        self.clockSkew = configuration.clockSkew ?? clockSkew
    }

    func verify(_ request: VerifyRequest) async throws(ServiceFailure) -> VerifiedIdentity {
        try await verify(token: request.token, nonce: request.nonce)
    }

    /// The identity the token proves, or the failure to answer with.
    func verify(token: String, nonce: String?, now: Date = Date()) async throws(ServiceFailure) -> VerifiedIdentity {
        identity(from: try await checkedClaims(token: token, nonce: nonce, now: now))
    }

    /// The claims of a token whose signature, claims and nonce all pass.
    func checkedClaims(token: String, nonce: String?, now: Date = Date()) async throws(ServiceFailure) -> JWTClaims {
        let claims = try await signedClaims(token: token)
        do {
            let rules = ClaimRules(issuers: configuration.issuers, audiences: configuration.clientIDs, leeway: clockSkew)
            try rules.check(claims, now: now)
            try NonceCheck.check(tokenNonce: claims.nonce, requestNonce: nonce, mode: configuration.nonceMode,
                                 allowTokenNonceWithoutRequest: configuration.allowsTokenNonceWithoutRequest)
        } catch {
            throw Self.failure(error)
        }
        return claims
    }

    /// The claims of a token signed by one of the provider's keys with an allowed algorithm;
    /// no claim is checked yet.
    func signedClaims(token: String) async throws(ServiceFailure) -> JWTClaims {
        let jws: CompactJWS
        do {
            jws = try CompactJWS.parse(token, maxLength: Self.maxTokenLength)
        } catch {
            throw Self.failure(error)
        }
        // Refused before the keys are looked at, so such tokens never cause a key-set fetch.
        guard let algorithm = jws.header.algorithm, configuration.algorithms.contains(algorithm) else {
            throw Self.failure(.algorithmNotAllowed)
        }
        let keySet: VerificationKeySet
        do {
            keySet = try await keys.keys(for: jws.header.kid)
        } catch {
            throw ServiceFailure(.providerUnavailable, "\(configuration.provider) could not be reached to check the token; try again.")
        }
        do {
            try jws.verify(with: keySet, allowed: configuration.algorithms)
            return try JWTClaims.decode(jws.payload)
        } catch {
            throw Self.failure(error)
        }
    }

    /// What checked claims say about the user.
    func identity(from claims: JWTClaims) -> VerifiedIdentity {
        let name = claims.name ?? [claims.givenName, claims.familyName].compactMap { $0 }.joined(separator: " ")
        // Google's and Kakao's `picture`; read leniently (an odd one is dropped, the token still good).
        var picture: String?
        if case .string(let value)? = claims.raw["picture"] { picture = ProfileRules.pictureURL(value) }
        return VerifiedIdentity(provider: configuration.provider, subject: claims.sub ?? "", email: claims.email,
                                emailVerified: claims.emailVerified, isPrivateEmail: claims.isPrivateEmail,
                                name: name.isEmpty ? nil : name, pictureUrl: picture, signedInAt: claims.iat)
    }

    /// The answer for a JOSE failure: what the caller can act on, without internals.
    static func failure(_ error: JOSEError) -> ServiceFailure {
        switch error {
        case .expired:
            ServiceFailure(.providerTokenExpired, "The provider token has expired; sign in with the provider again.")
        case .nonceMismatch, .nonceMissing:
            ServiceFailure(.nonceMismatch, "The token's nonce does not match the nonce sent.")
        case .tooLarge:
            ServiceFailure(.invalidProviderToken, "The provider token is larger than \(maxTokenLength) bytes.")
        default:
            ServiceFailure(.invalidProviderToken, "The provider token is not valid (\(error.code)).")
        }
    }
}
