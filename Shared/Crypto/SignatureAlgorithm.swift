/// A signature scheme supported by `PublicKey.verify` and `PrivateKey.sign`.
public enum SignatureAlgorithm: Sendable, Hashable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (JWS `RS256`).
    case rsaPKCS1SHA256
    /// ECDSA on P-256 with SHA-256, signatures as raw 64-byte R‖S (JWS `ES256`).
    case ecdsaP256SHA256
    /// Ed25519 (JWS `EdDSA`).
    case ed25519
}
