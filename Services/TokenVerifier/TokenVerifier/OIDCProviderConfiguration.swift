import Contracts
import JOSE

/// How one OpenID Connect provider's ID tokens are proved.
public struct OIDCProviderConfiguration: Sendable {
    /// Which provider this is.
    public var provider: Provider
    /// Accepted audiences: the app's client IDs (iOS, Android, web). Empty: the provider is disabled.
    public var clientIDs: Set<String>
    /// Accepted `iss` values, matched exactly.
    public var issuers: Set<String>
    /// Where the provider publishes its keys.
    public var jwksURL: String
    /// Signature algorithms accepted. Default RS256.
    public var algorithms: Set<JWSAlgorithm> = [.RS256]
    /// How the token's nonce relates to the raw nonce the app sends.
    public var nonceMode: NonceMode = .sha256Hex
    /// Whether a token with a nonce is accepted when the request has none.
    public var allowsTokenNonceWithoutRequest: Bool = false
    /// Leeway for this provider's `exp`, `nbf` and `iat`; nil: the verifier's `CLOCK_SKEW`.
    public var clockSkew: Duration?

    /// Creates a provider configuration.
    public init(provider: Provider, clientIDs: Set<String>, issuers: Set<String>, jwksURL: String,
                algorithms: Set<JWSAlgorithm> = [.RS256], nonceMode: NonceMode = .sha256Hex,
                allowsTokenNonceWithoutRequest: Bool = false, clockSkew: Duration? = nil) {
        self.provider = provider
        self.clientIDs = clientIDs
        self.issuers = issuers
        self.jwksURL = jwksURL
        self.algorithms = algorithms
        self.nonceMode = nonceMode
        self.allowsTokenNonceWithoutRequest = allowsTokenNonceWithoutRequest
        self.clockSkew = clockSkew
    }
}
