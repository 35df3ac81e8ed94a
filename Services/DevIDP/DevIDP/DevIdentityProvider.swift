import Foundation
import JOSE

/// The state of the dev identity provider: one fake issuer per OIDC provider.
public actor DevIdentityProvider {
    /// The providers it stands in for, by path name.
    public static let providerNames = ["google", "apple", "kakao"]

    private var issuers: [String: FakeIssuer] = [:]
    /// The base URL the issuers are named after.
    public let baseURL: String

    /// Creates the provider with fresh keys; issuers are `<baseURL>/<provider>`.
    public init(baseURL: String) throws {
        self.baseURL = baseURL
        for name in Self.providerNames {
            issuers[name] = try FakeIssuer(name: name, issuer: "\(baseURL)/\(name)")
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

    /// Mints an ID token for `provider`.
    public func mint(_ provider: String, _ request: MintRequest) throws -> String? {
        guard let fake = issuers[provider] else { return nil }
        var claims = request.claims
        let now = Int64(Date().timeIntervalSince1970)
        if claims["iss"] == nil { claims["iss"] = .string(fake.issuer) }
        if claims["iat"] == nil { claims["iat"] = .integer(now) }
        if claims["exp"] == nil { claims["exp"] = .integer(now + Int64(request.expiresIn ?? 3600)) }
        let key = request.unpublishedKey == true ? fake.unpublished : fake.current
        let extra = request.kid.map { ["kid": $0] } ?? [:]
        return try key.signer.sign(header: extra, claimsJSON: Array(JSONEncoder().encode(claims)))
    }

    /// Adds a signing key to `provider`; returns its kid.
    public func rotate(_ provider: String) throws -> String? {
        try issuers[provider]?.rotate()
    }

    /// How many times each provider's key set was fetched.
    public func jwksFetches() -> [String: Int] {
        issuers.mapValues(\.jwksFetches)
    }
}
