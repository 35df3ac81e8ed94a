import Crypto

extension CompactJWS {
    /// Checks the signature against `keys`, refusing anything not explicitly allowed.
    ///
    /// Rules: `alg` must be RS256, ES256 or EdDSA (`unsupportedAlgorithm` otherwise) and in `allowed`
    /// (`algorithmNotAllowed`); any `crit` is refused; `jku`, `x5u`, `jwk` and `x5c` are ignored; the key is
    /// chosen by `kid` (with no `kid`, only if exactly one key has the token's algorithm); the algorithm must
    /// match the key's type and its JWK `alg` (`algorithmKeyMismatch`).
    /// Returns the key that verified the signature.
    @discardableResult
    public func verify(with keys: VerificationKeySet, allowed: Set<JWSAlgorithm>) throws(JOSEError) -> VerificationKey {
        guard let algorithm = header.algorithm else {
            throw JOSEError.unsupportedAlgorithm.with("alg \(header.alg.prefix(16)) is not supported")
        }
        guard allowed.contains(algorithm) else {
            throw JOSEError.algorithmNotAllowed.with("alg \(algorithm.rawValue) is not allowed here")
        }
        if let critical = header.crit {
            guard !critical.isEmpty else { throw JOSEError.malformed.with("crit must not be empty") }
            throw JOSEError.unsupportedCriticalHeader
        }
        guard let key = keys.key(for: header.kid, algorithm: algorithm) else {
            throw JOSEError.unknownKey
        }
        guard key.algorithm == algorithm, algorithm.fits(key.publicKey.kind) else {
            throw JOSEError.algorithmKeyMismatch.with("token alg \(algorithm.rawValue), key alg \(key.algorithm.rawValue)")
        }
        guard key.publicKey.verify(signature: signature, message: signingInput, algorithm: algorithm.signatureAlgorithm) else {
            throw JOSEError.badSignature
        }
        return key
    }
}
