import Crypto
import Foundation
import JOSE
import JSON
import Runtime

/// The state of the dev identity provider: one fake issuer per OIDC provider, Naver's tokens,
/// Apple's codes and refresh tokens, the simulated outages and the counters of `GET /stats`.
///
/// Its state lives on a thread of its own (`executor`), as a provider on the internet runs on its own
/// machine: in a test process, beside suites that hold Swift's cooperative threads for seconds, its
/// answers do not wait for them (they did, and the verifier's 4 s provider timeout ran out).
public actor DevIdentityProvider {
    /// The thread the actor runs on (and the server's handlers, when asked: `DevIDPServer`).
    nonisolated let executor: ThreadExecutor
    /// The actor runs on `executor`'s thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// The OpenID Connect providers it stands in for, by path name.
    public static let providerNames = ["google", "apple", "kakao"]
    /// Every provider it stands in for, by path name.
    public static let allProviderNames = providerNames + ["naver"]

    var issuers: [String: FakeIssuer] = [:]
    /// The base URL the issuers are named after.
    public let baseURL: String
    let configuration: DevIDPConfiguration
    /// The key Apple client secrets must be signed with, when configured.
    let appleClientSecretKey: PublicKey?

    var behaviour: [String: ProviderBehaviour] = [:]
    var subjectBehaviour: [String: [String: ProviderBehaviour]] = [:]
    var naverAccounts: [String: NaverAccount] = [:]
    var naverDeleteAttempts: [String: Int] = [:]
    var appleCodes: [String: AppleGrant] = [:]
    var appleRefreshTokens: [String: AppleGrant] = [:]
    var appleRevokeCalls: [String: [AppleRevokeCall]] = [:]
    var appleClientSecretsSeen: Set<String> = []
    var appleRevocations = 0
    var naverDeletions = 0
    var appleTokenExchanges = 0

    /// Creates the provider with fresh keys, on `executor`'s thread; issuers are `<baseURL>/<provider>`.
    public static func make(baseURL: String, configuration: DevIDPConfiguration = DevIDPConfiguration(),
                            executor: ThreadExecutor) async throws -> DevIdentityProvider {
        // Four RSA keys take a second or more on a busy machine: made on the provider's own thread.
        try await withTaskExecutorPreference(executor) {
            try DevIdentityProvider(baseURL: baseURL, configuration: configuration, executor: executor)
        }
    }

    private init(baseURL: String, configuration: DevIDPConfiguration, executor: ThreadExecutor) throws {
        self.executor = executor
        self.baseURL = baseURL
        self.configuration = configuration
        self.appleClientSecretKey = try configuration.appleKeyFile.map(Self.loadPublicKey)
        let unpublished = try FakeIssuer.makeKey(PrivateKey.generateRSA(bits: 2048), .RS256)
        for name in Self.providerNames {
            issuers[name] = try FakeIssuer(name: name, issuer: "\(baseURL)/\(name)", unpublished: unpublished)
        }
    }

    /// The issuer URL of `provider`.
    public nonisolated func issuer(_ provider: String) -> String { "\(baseURL)/\(provider)" }

    /// The JWKS URL of `provider`.
    public nonisolated func jwksURL(_ provider: String) -> String { "\(baseURL)/\(provider)/jwks" }

    /// The published keys of `provider` (counts a fetch), or nil for an unknown provider.
    func publishedKeys(_ provider: String) -> JWKSet? {
        issuers[provider]?.publishedKeys()
    }

    /// The never-published key of `provider` as a key set (counts a fetch).
    func unpublishedKeys(_ provider: String) -> JWKSet? {
        issuers[provider]?.unpublishedKeys()
    }

    /// The public JWK of the key `provider` signs `algorithm` tokens with (the unpublished RSA key on request).
    public func signingJWK(_ provider: String, algorithm: String = "RS256", unpublished: Bool = false) -> JWK? {
        issuers[provider]?.key(for: algorithm, unpublished: unpublished)?.jwk
    }

    /// The issuer `provider` stands for, as it is now (its keys), nil for an unknown provider.
    func issuerNow(_ provider: String) -> FakeIssuer? {
        issuers[provider]
    }

    /// Mints an ID token for `provider`, nil for an unknown provider or algorithm. The signature is made
    /// off the actor: every test and request shares this one provider, and signatures made on it queued
    /// its quick calls (a Naver profile lookup, an Apple code exchange) past the verifier's timeout.
    @concurrent public nonisolated func mint(_ provider: String, _ request: MintRequest) async throws -> String? {
        guard let fake = await issuerNow(provider) else { return nil }
        var claims = request.claims
        let now = Int64(Date().timeIntervalSince1970)
        if claims["iss"] == nil { claims["iss"] = .string(fake.issuer) }
        if claims["iat"] == nil { claims["iat"] = .integer(now) }
        if claims["exp"] == nil { claims["exp"] = .integer(now + Int64(request.expiresIn ?? 3600)) }
        let algorithm = request.algorithm ?? "RS256"
        let key = fake.key(for: algorithm, unpublished: request.unpublishedKey == true)
        // Well-formed tokens go through the one JWT signer; deliberately odd ones are assembled here.
        if let key, request.header == nil, request.kid == nil {
            return try key.signer.sign(claimsJSON: MessageCoding.encode(claims))
        }
        var header: [String: JSONValue] = ["alg": .string(algorithm), "typ": .string("JWT")]
        if let key { header["kid"] = .string(key.kid) }
        if let kid = request.kid { header["kid"] = .string(kid) }
        for (name, value) in request.header ?? [:] {
            header[name] = value == .null ? nil : value
        }
        let signingInput = Array((Base64URL.encode(try MessageCoding.encodeSortingKeys(header)) + "."
            + Base64URL.encode(try MessageCoding.encodeSortingKeys(claims))).utf8)
        let signature: [UInt8]
        switch (algorithm, key) {
        case (_, let key?):
            signature = try key.signer.key.sign(signingInput, algorithm: key.signer.algorithm.signatureAlgorithm)
        case ("none", nil):
            signature = []
        case ("HS256", nil):
            let secret = try request.hmacKey ?? fake.current.signer.key.publicKey.pemRepresentation
            signature = HMAC.sha256(key: Array(secret.utf8), message: signingInput)
        default:
            return nil
        }
        return String(decoding: signingInput, as: UTF8.self) + "." + Base64URL.encode(signature)
    }

    /// Adds a signing key to `provider`; returns its kid. The key is made off the actor, on the caller's
    /// executor (an RSA key takes tens of milliseconds, more on a busy machine), so the provider's other
    /// answers do not wait for it.
    @concurrent public nonisolated func rotate(_ provider: String) async throws -> String? {
        guard Self.providerNames.contains(provider) else { return nil }
        let key = try FakeIssuer.makeKey(PrivateKey.generateRSA(bits: 2048), .RS256)
        return await add(key, to: provider)
    }

    private func add(_ key: FakeIssuer.Key, to provider: String) -> String? {
        guard issuers[provider] != nil else { return nil }
        issuers[provider]?.add(key)
        return key.kid
    }

    /// How many times each provider's key set was fetched.
    public func jwksFetches() -> [String: Int] {
        issuers.mapValues(\.jwksFetches)
    }

    /// Everything `GET /stats` reports.
    public func stats() -> DevIDPStats {
        DevIDPStats(appleRevocations: appleRevocations, naverDeletions: naverDeletions, jwksFetches: jwksFetches(),
                    appleTokenExchanges: appleTokenExchanges, appleClientSecrets: appleClientSecretsSeen.count,
                    unpublishedJWKSFetches: issuers.values.map(\.unpublishedJWKSFetches).reduce(0, +))
    }

    /// Applies `POST /<provider>/control`; false for an unknown provider.
    @discardableResult
    public func control(_ provider: String, _ control: ProviderControl) -> Bool {
        guard Self.allProviderNames.contains(provider) else { return false }
        if let subject = control.subject {
            subjectBehaviour[provider, default: [:]][subject, default: ProviderBehaviour()].apply(control)
        } else {
            behaviour[provider, default: ProviderBehaviour()].apply(control)
        }
        return true
    }

    /// How `provider` behaves for a request about `subject` (an outage of either applies).
    func behaviour(_ provider: String, subject: String?) -> ProviderBehaviour {
        let whole = behaviour[provider] ?? ProviderBehaviour()
        guard let subject, let own = subjectBehaviour[provider]?[subject] else { return whole }
        return ProviderBehaviour(available: whole.available && own.available, jwksAvailable: whole.jwksAvailable,
                                 delay: max(whole.delay, own.delay))
    }

    private static func loadPublicKey(path: String) throws -> PublicKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DevIDPError("DEV_IDP_APPLE_KEY_FILE: '\(path)' cannot be read")
        }
        let pem = String(decoding: data, as: UTF8.self)
        if let key = try? PublicKey.pem(pem) { return key }
        guard let key = try? PrivateKey(pem: pem) else { throw DevIDPError("DEV_IDP_APPLE_KEY_FILE: '\(path)' holds no PEM key") }
        return key.publicKey
    }
}

/// Why the dev identity provider cannot start.
struct DevIDPError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
