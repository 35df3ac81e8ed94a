import Crypto
import JSON

/// Signs JWTs with one private key under one `kid`, for the token issuer and the development identity provider.
public struct JWTSigner: Sendable {
    /// The signing key.
    public let key: PrivateKey
    /// The key ID written into every header.
    public let kid: String
    /// The JWS algorithm; it must fit the key (ES256 ↔ P-256, EdDSA ↔ Ed25519, RS256 ↔ RSA) or signing throws.
    public let algorithm: JWSAlgorithm
    /// The base64url header for the common case with no extra members, computed once.
    private let defaultHeader: String

    /// A signer for `key`, publishing `kid` in the header.
    public init(key: PrivateKey, kid: String, algorithm: JWSAlgorithm) {
        self.key = key
        self.kid = kid
        self.algorithm = algorithm
        self.defaultHeader = Base64URL.encode(Self.headerJSON(alg: algorithm.rawValue, kid: kid, extra: [:]).utf8)
    }

    /// The public JWK to publish for this signer's key.
    public var jwk: JWK { JWK(publicKey: key.publicKey, kid: kid, alg: algorithm) }

    /// A compact JWT with header `{alg, kid, typ: "JWT"}` plus `extra`, over `claimsJSON` as given.
    ///
    /// `extra` may override `typ` but not `alg`, `kid` or `crit` (`invalidArgument`).
    public func sign(header extra: [String: String] = [:], claimsJSON: [UInt8]) throws -> String {
        let header: String
        if extra.isEmpty {
            header = defaultHeader
        } else {
            guard extra["alg"] == nil, extra["kid"] == nil, extra["crit"] == nil else {
                throw JOSEError.invalidArgument.with("extra header members may not set alg, kid or crit")
            }
            header = Base64URL.encode(Self.headerJSON(alg: algorithm.rawValue, kid: kid, extra: extra).utf8)
        }
        var signingInput = Array(header.utf8)
        signingInput.reserveCapacity(signingInput.count + 1 + (claimsJSON.count * 4 + 2) / 3 + 1 + 350)
        signingInput.append(UInt8(ascii: "."))
        signingInput.append(contentsOf: Base64URL.encode(claimsJSON).utf8)
        let signature = try key.sign(signingInput, algorithm: algorithm.signatureAlgorithm)
        signingInput.append(UInt8(ascii: "."))
        signingInput.append(contentsOf: Base64URL.encode(signature).utf8)
        return String(decoding: signingInput, as: UTF8.self)
    }

    /// A compact JWT over the JSON encoding of `claims`, members sorted by name.
    public func sign<C: Encodable>(_ claims: C) throws -> String {
        try sign(claimsJSON: MessageCoding.encodeSortingKeys(claims))
    }

    /// Header JSON with members in a fixed order: alg, kid, typ, then extra members sorted by name.
    private static func headerJSON(alg: String, kid: String, extra: [String: String]) -> String {
        var members = [("alg", alg), ("kid", kid), ("typ", extra["typ"] ?? "JWT")]
        members += extra.filter { $0.key != "typ" }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return "{" + members.map { "\(MessageCoding.quoted($0.0)):\(MessageCoding.quoted($0.1))" }.joined(separator: ",") + "}"
    }
}
