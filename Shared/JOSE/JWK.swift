/// A JSON Web Key (RFC 7517) holding public members only.
///
/// Private members (`d`, `p`, `q`, `dp`, `dq`, `qi`, `k`) are ignored when decoding and never written when encoding.
public struct JWK: Codable, Sendable, Hashable {
    /// Key type: `RSA`, `EC`, `OKP` (or `oct`, which is refused).
    public var kty: String
    /// Key ID, matched against a token header's `kid`.
    public var kid: String?
    /// The algorithm this key is meant for, if the publisher said.
    public var alg: String?
    /// Intended use: `sig` or `enc`.
    public var use: String?
    /// Permitted operations (`verify`, `sign`, `encrypt`, ...), if the publisher said.
    public var keyOps: [String]?
    /// Curve for `EC` (`P-256`) and `OKP` (`Ed25519`) keys.
    public var crv: String?
    /// RSA modulus, base64url.
    public var n: String?
    /// RSA public exponent, base64url.
    public var e: String?
    /// EC x coordinate or OKP public key, base64url.
    public var x: String?
    /// EC y coordinate, base64url.
    public var y: String?

    private enum CodingKeys: String, CodingKey {
        case kty, kid, alg, use, keyOps = "key_ops", crv, n, e, x, y
    }

    /// A JWK from its members; prefer `init(publicKey:kid:alg:)` for keys you hold.
    public init(kty: String, kid: String? = nil, alg: String? = nil, use: String? = nil, keyOps: [String]? = nil,
                crv: String? = nil, n: String? = nil, e: String? = nil, x: String? = nil, y: String? = nil) {
        self.kty = kty
        self.kid = kid
        self.alg = alg
        self.use = use
        self.keyOps = keyOps
        self.crv = crv
        self.n = n
        self.e = e
        self.x = x
        self.y = y
    }
}
