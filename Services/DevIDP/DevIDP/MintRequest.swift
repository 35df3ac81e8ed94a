import JOSE

/// `POST /<provider>/mint`: the claims of the ID token to mint. `iss`, `iat` and `exp` are
/// filled in when absent (`exp` = now + `expiresIn`, default one hour).
public struct MintRequest: Codable, Sendable {
    /// The claims; anything goes, including wrong ones, since tests mint bad tokens too.
    public var claims: [String: JSONValue]
    /// Lifetime when `exp` is not in `claims`. Default 3600 s.
    public var expiresIn: Int?
    /// Sign with a key that is not in the published key set.
    public var unpublishedKey: Bool?
    /// Put this `kid` in the header instead of the signing key's.
    public var kid: String?

    /// Creates a mint request.
    public init(claims: [String: JSONValue], expiresIn: Int? = nil, unpublishedKey: Bool? = nil, kid: String? = nil) {
        self.claims = claims
        self.expiresIn = expiresIn
        self.unpublishedKey = unpublishedKey
        self.kid = kid
    }
}

/// The answer to a mint request.
public struct MintResponse: Codable, Sendable {
    /// The compact JWS.
    public var token: String
}
