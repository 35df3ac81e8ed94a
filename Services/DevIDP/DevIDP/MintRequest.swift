import JSON

/// `POST /<provider>/mint`: the claims of the ID token to mint. `iss`, `iat` and `exp` are
/// filled in when absent (`exp` = now + `expiresIn`, default one hour). The other members
/// make bad tokens on purpose, for tests of the verifier's rules.
public struct MintRequest: Codable, Sendable {
    /// The claims; anything goes, including wrong ones, since tests mint bad tokens too.
    public var claims: [String: JSONValue]
    /// Lifetime when `exp` is not in `claims`. Default 3600 s.
    public var expiresIn: Int?
    /// Sign with an RSA key that is not in the published key set.
    public var unpublishedKey: Bool?
    /// Put this `kid` in the header instead of the signing key's.
    public var kid: String?
    /// How to sign: `RS256` (default), `ES256`, `EdDSA` (each with a published key of the issuer),
    /// `none` (no signature) or `HS256` (HMAC under `hmacKey`).
    public var algorithm: String?
    /// Header members to add or override (`alg`, `crit`, `jku`, `jwk`, ...); a JSON null removes one.
    public var header: [String: JSONValue]?
    /// The HS256 secret; default the PEM of the issuer's current RSA public key (the classic confusion attack).
    public var hmacKey: String?

    /// Creates a mint request.
    public init(claims: [String: JSONValue], expiresIn: Int? = nil, unpublishedKey: Bool? = nil, kid: String? = nil,
                algorithm: String? = nil, header: [String: JSONValue]? = nil, hmacKey: String? = nil) {
        self.claims = claims
        self.expiresIn = expiresIn
        self.unpublishedKey = unpublishedKey
        self.kid = kid
        self.algorithm = algorithm
        self.header = header
        self.hmacKey = hmacKey
    }
}

/// The answer to a mint request.
public struct MintResponse: Codable, Sendable {
    /// The compact JWS (or, for Naver, the opaque access token).
    public var token: String
}
