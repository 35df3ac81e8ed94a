/// The type of an asymmetric key, with its size where it varies.
public enum KeyKind: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// An RSA key with a modulus of `bits` bits.
    case rsa(bits: Int)
    /// An ECDSA key on NIST P-256 (secp256r1).
    case p256
    /// An Ed25519 key.
    case ed25519

    /// A short name such as `RSA-2048`, `P-256` or `Ed25519`.
    public var description: String {
        switch self {
        case .rsa(let bits): "RSA-\(bits)"
        case .p256: "P-256"
        case .ed25519: "Ed25519"
        }
    }

    /// Whether `algorithm` can be used with a key of this kind.
    public func fits(_ algorithm: SignatureAlgorithm) -> Bool {
        switch (self, algorithm) {
        case (.rsa, .rsaPKCS1SHA256), (.p256, .ecdsaP256SHA256), (.ed25519, .ed25519): true
        default: false
        }
    }
}
