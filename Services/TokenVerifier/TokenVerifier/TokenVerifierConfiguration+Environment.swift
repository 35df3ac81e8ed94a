import Contracts
import Crypto
import JOSE
import Management
import Messaging
import Runtime

extension TokenVerifierConfiguration {
    /// Reads the verifier's variables (docs/configuration.md): a provider is enabled when its client
    /// IDs are set. Throws naming the variable at fault.
    public init(environment: EnvironmentReader) throws(ConfigurationError) {
        self.init()
        natsURL = try environment.urlList("NATS_URL", default: natsURL, schemes: ["nats", "tls"])
        natsAccess = try environment.natsAccess(for: .tokenVerifier)
        clockSkew = try environment.seconds("CLOCK_SKEW", default: clockSkew, in: 0...600)
        providerTimeout = try environment.seconds("PROVIDER_TIMEOUT", default: providerTimeout, in: 1...60)
        management = try environment.management(defaultPort: nil)
        events = try environment.eventStream()

        // Google names its issuer variable in the plural (it has two issuers); Apple and Kakao have one,
        // though each variable takes a comma-separated list.
        let oidc: [(Provider, String, issuerVariable: String, issuers: [String], jwks: String, nonce: NonceMode)] = [
            (.google, "GOOGLE", "GOOGLE_ISSUERS", ["https://accounts.google.com", "accounts.google.com"],
             "https://www.googleapis.com/oauth2/v3/certs", .sha256Hex),
            (.apple, "APPLE", "APPLE_ISSUER", ["https://appleid.apple.com"], "https://appleid.apple.com/auth/keys", .sha256Hex),
            (.kakao, "KAKAO", "KAKAO_ISSUER", ["https://kauth.kakao.com"], "https://kauth.kakao.com/.well-known/jwks.json", .raw),
        ]
        for (provider, prefix, issuerVariable, defaultIssuers, defaultJWKS, defaultNonce) in oidc {
            guard let clientIDs = environment.list("\(prefix)_CLIENT_IDS") else { continue }
            let issuers = environment.list(issuerVariable) ?? defaultIssuers
            for issuer in issuers where issuer.contains(" ") {
                throw ConfigurationError(variable: issuerVariable, problem: "'\(issuer)' contains a space")
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
            let skew: Duration? = environment.optional("\(prefix)_CLOCK_SKEW") == nil
                ? nil : try environment.seconds("\(prefix)_CLOCK_SKEW", default: clockSkew, in: 0...600)
            providers[provider] = OIDCProviderConfiguration(
                provider: provider,
                clientIDs: Set(clientIDs),
                issuers: Set(issuers),
                jwksURL: try environment.url("\(prefix)_JWKS_URL", default: defaultJWKS),
                algorithms: algorithms,
                nonceMode: NonceMode(rawValue: nonceName)!,
                allowsTokenNonceWithoutRequest: try environment.bool("\(prefix)_ALLOW_NONCE_WITHOUT_REQUEST", default: false),
                clockSkew: skew)
        }

        try readNaver(environment)
        try readApple(environment)
        if let (encoded, variable) = try environment.secret("PROVIDER_TOKEN_KEY") {
            guard let key = Base64URL.decodeKey(encoded), key.count == AESGCM.keyLength else {
                throw ConfigurationError(variable: variable,
                                         problem: "must be the base64 or base64url of 32 random bytes (openssl rand -base64 32)")
            }
            providerTokenKey = key
        }
        for name in environment.list("REQUIRE_SERVER_NONCE") ?? [] {
            guard let provider = Provider(name: name), provider != .naver else {
                throw ConfigurationError(variable: "REQUIRE_SERVER_NONCE",
                                         problem: "'\(name)' is not one of google, apple, kakao (Naver's logins carry no ID token)")
            }
            requireServerNonce.insert(provider)
        }
        if !requireServerNonce.isEmpty, providerTokenKey == nil {
            throw ConfigurationError(variable: "REQUIRE_SERVER_NONCE",
                                     problem: "needs PROVIDER_TOKEN_KEY, from which every replica derives the nonces' key")
        }
    }

    private mutating func readNaver(_ environment: EnvironmentReader) throws(ConfigurationError) {
        let id = environment.optional("NAVER_CLIENT_ID")
        let secret = try environment.secret("NAVER_CLIENT_SECRET")?.value
        guard let id, let secret else {
            if id != nil || secret != nil {
                throw ConfigurationError(variable: id == nil ? "NAVER_CLIENT_ID" : "NAVER_CLIENT_SECRET",
                                         problem: "must be set together with \(id == nil ? "NAVER_CLIENT_SECRET" : "NAVER_CLIENT_ID")")
            }
            return
        }
        var naver = NaverConfiguration(clientID: id, clientSecret: secret)
        naver.profileURL = try environment.url("NAVER_PROFILE_URL", default: naver.profileURL)
        naver.tokenURL = try environment.url("NAVER_TOKEN_URL", default: naver.tokenURL)
        self.naver = naver
    }

    private mutating func readApple(_ environment: EnvironmentReader) throws(ConfigurationError) {
        let names = ["APPLE_TEAM_ID", "APPLE_KEY_ID", "APPLE_PRIVATE_KEY_FILE"]
        let values = names.map { environment.optional($0) }
        guard let teamID = values[0], let keyID = values[1], let keyFile = values[2] else {
            if let missing = zip(names, values).first(where: { $0.1 == nil }), values.contains(where: { $0 != nil }) {
                throw ConfigurationError(variable: missing.0, problem: "must be set with \(names.joined(separator: ", ")) for Apple code exchange")
            }
            return
        }
        var credentials = AppleCredentials(teamID: teamID, keyID: keyID, privateKey: try AppleCredentials.loadPrivateKey(path: keyFile))
        credentials.tokenURL = try environment.url("APPLE_TOKEN_URL", default: credentials.tokenURL)
        credentials.revokeURL = try environment.url("APPLE_REVOKE_URL", default: credentials.revokeURL)
        appleCredentials = credentials
    }
}
