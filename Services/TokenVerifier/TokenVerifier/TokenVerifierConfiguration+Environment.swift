import Contracts
import JOSE
import Runtime

extension TokenVerifierConfiguration {
    /// Reads the verifier's variables (SPEC section 5): a provider is enabled when its client
    /// IDs are set. Throws naming the variable at fault.
    public init(environment: EnvironmentReader) throws(ConfigurationError) {
        self.init()
        natsURL = try environment.url("NATS_URL", default: natsURL, schemes: ["nats", "tls"])
        clockSkew = try environment.seconds("CLOCK_SKEW", default: 60, in: 0...600)
        providerTimeout = try environment.seconds("PROVIDER_TIMEOUT", default: 5, in: 1...60)

        let oidc: [(Provider, String, issuers: [String], jwks: String, nonce: NonceMode)] = [
            (.google, "GOOGLE", ["https://accounts.google.com", "accounts.google.com"],
             "https://www.googleapis.com/oauth2/v3/certs", .sha256Hex),
            (.apple, "APPLE", ["https://appleid.apple.com"], "https://appleid.apple.com/auth/keys", .sha256Hex),
            (.kakao, "KAKAO", ["https://kauth.kakao.com"], "https://kauth.kakao.com/.well-known/jwks.json", .raw),
        ]
        for (provider, prefix, defaultIssuers, defaultJWKS, defaultNonce) in oidc {
            guard let clientIDs = environment.list("\(prefix)_CLIENT_IDS") else { continue }
            // Google names its variable GOOGLE_ISSUERS (two issuers); Apple and Kakao have one.
            let issuers = environment.list("\(prefix)_ISSUERS") ?? environment.list("\(prefix)_ISSUER") ?? defaultIssuers
            for issuer in issuers where issuer.contains(" ") {
                throw ConfigurationError(variable: "\(prefix)_ISSUERS", problem: "'\(issuer)' contains a space")
            }
            let algorithmNames = environment.list("\(prefix)_ALGORITHMS") ?? ["RS256"]
            var algorithms: Set<JWSAlgorithm> = []
            for name in algorithmNames {
                guard let algorithm = JWSAlgorithm(rawValue: name) else {
                    throw ConfigurationError(variable: "\(prefix)_ALGORITHMS",
                                             problem: "'\(name)' is not one of \(JWSAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                algorithms.insert(algorithm)
            }
            let nonceName = try environment.choice("\(prefix)_NONCE_MODE", default: defaultNonce.rawValue,
                                                   from: [NonceMode.sha256Hex, .raw, .either].map(\.rawValue))
            providers[provider] = OIDCProviderConfiguration(
                provider: provider,
                clientIDs: Set(clientIDs),
                issuers: Set(issuers),
                jwksURL: try environment.url("\(prefix)_JWKS_URL", default: defaultJWKS),
                algorithms: algorithms,
                nonceMode: NonceMode(rawValue: nonceName)!,
                allowsTokenNonceWithoutRequest: try environment.bool("\(prefix)_ALLOW_NONCE_WITHOUT_REQUEST", default: false))
        }
    }
}
