import JSON
/// The protected header of a compact JWS.
///
/// `jku`, `x5u`, `jwk` and `x5c` are decoded only so callers can see they were present; verification never uses them.
public struct JOSEHeader: Codable, Sendable, Hashable {
    /// The algorithm name exactly as written (it may be one this module refuses, such as `none`).
    public var alg: String
    /// Key ID.
    public var kid: String?
    /// Media type of the whole JWS, such as `JWT`.
    public var typ: String?
    /// Media type of the payload.
    public var cty: String?
    /// Names of extensions the verifier must understand; this module understands none.
    public var crit: [String]?
    /// A URL of a key set: never followed.
    public var jku: String?
    /// A URL of a certificate: never followed.
    public var x5u: String?
    /// An embedded key: never trusted.
    public var jwk: JSONValue?
    /// An embedded certificate chain: never trusted.
    public var x5c: JSONValue?

    /// A header with the given members.
    public init(alg: String, kid: String? = nil, typ: String? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
    }

    /// The algorithm if it is one this module implements.
    public var algorithm: JWSAlgorithm? { JWSAlgorithm(rawValue: alg) }

    /// Whether the header names a key by reference or embeds one (`jku`, `x5u`, `jwk`, `x5c`).
    public var carriesKeyReference: Bool { jku != nil || x5u != nil || jwk != nil || x5c != nil }
}
