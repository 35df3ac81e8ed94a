import Crypto

/// One key from a key set, parsed and ready to verify, with the single algorithm it may be used with.
public struct VerificationKey: Sendable {
    /// The key ID, if the JWK had one.
    public let kid: String?
    /// The parsed public key.
    public let publicKey: PublicKey
    /// The JWS algorithm allowed with this key: the JWK's `alg` when given, else the one that fits the key type.
    public let algorithm: JWSAlgorithm

    /// A key usable with `algorithm`, which must fit the key type.
    public init(kid: String?, publicKey: PublicKey, algorithm: JWSAlgorithm) throws(JOSEError) {
        guard algorithm.fits(publicKey.kind) else {
            throw JOSEError.algorithmKeyMismatch.with("\(algorithm.rawValue) does not fit a \(publicKey.kind) key")
        }
        self.kid = kid
        self.publicKey = publicKey
        self.algorithm = algorithm
    }

    /// Parses a JWK for verification; throws when the key is unusable for signatures here.
    ///
    /// Refused: keys whose `use` is not `sig`, whose `key_ops` lacks `verify`, whose `alg` is not one of
    /// `JWSAlgorithm` or does not fit the key type, and anything `JWK.publicKey()` refuses.
    public init(_ jwk: JWK) throws(JOSEError) {
        if let use = jwk.use, use != "sig" {
            throw JOSEError.unsupportedKey.with("key use is \(use), not sig")
        }
        if let operations = jwk.keyOps, !operations.contains("verify") {
            throw JOSEError.unsupportedKey.with("key_ops does not allow verify")
        }
        let publicKey = try jwk.publicKey()
        let algorithm: JWSAlgorithm
        if let name = jwk.alg {
            guard let declared = JWSAlgorithm(rawValue: name) else {
                throw JOSEError.unsupportedAlgorithm.with("key alg \(name) is not supported")
            }
            algorithm = declared
        } else {
            algorithm = JWSAlgorithm(for: publicKey.kind)
        }
        try self.init(kid: jwk.kid, publicKey: publicKey, algorithm: algorithm)
    }
}
