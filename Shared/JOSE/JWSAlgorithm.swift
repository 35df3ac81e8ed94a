import Crypto

/// The JWS signature algorithms this module verifies and signs; everything else (`none`, HS*, PS*, ...) is refused.
public enum JWSAlgorithm: String, Sendable, Codable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case RS256
    /// ECDSA on P-256 with SHA-256.
    case ES256
    /// Ed25519 (RFC 8037).
    case EdDSA

    /// The Crypto signature algorithm behind this JWS algorithm.
    public var signatureAlgorithm: SignatureAlgorithm {
        switch self {
        case .RS256: .rsaPKCS1SHA256
        case .ES256: .ecdsaP256SHA256
        case .EdDSA: .ed25519
        }
    }

    /// The only algorithm this module uses with a key of `kind`.
    public init(for kind: KeyKind) {
        switch kind {
        case .rsa: self = .RS256
        case .p256: self = .ES256
        case .ed25519: self = .EdDSA
        }
    }

    /// Whether this algorithm can be used with a key of `kind`.
    public func fits(_ kind: KeyKind) -> Bool {
        kind.fits(signatureAlgorithm)
    }
}
