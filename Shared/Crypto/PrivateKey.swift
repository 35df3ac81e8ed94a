import COpenSSL

/// A private signing key (RSA, P-256 or Ed25519) with its public half.
public final class PrivateKey: Sendable {
    let key: EVPKey
    /// The key's type and size.
    public let kind: KeyKind
    /// The public half, for verifying and for publishing as a JWK.
    public let publicKey: PublicKey

    init(_ key: EVPKey) throws(CryptoError) {
        self.key = key
        self.kind = try key.kind()
        self.publicKey = try PublicKey(key.publicOnly())
    }

    /// A fresh P-256 key from the CSPRNG.
    public static func generateP256() throws(CryptoError) -> PrivateKey {
        try PrivateKey(EVPKey.generate(type: "EC") { context in EVP_PKEY_CTX_set_group_name(context, "prime256v1") })
    }

    /// A fresh Ed25519 key from the CSPRNG.
    public static func generateEd25519() throws(CryptoError) -> PrivateKey {
        try PrivateKey(EVPKey.generate(type: "ED25519") { _ in 1 })
    }

    /// A fresh RSA key with a modulus of `bits` bits (2048 to 8192) and exponent 65537.
    public static func generateRSA(bits: Int) throws(CryptoError) -> PrivateKey {
        guard (2048...8192).contains(bits) else { throw CryptoError.unsupportedKey.with("RSA keys must be 2048 to 8192 bits") }
        return try PrivateKey(EVPKey.generate(type: "RSA") { context in EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) })
    }

    /// Reads an unencrypted private key from PEM: PKCS#8 (`PRIVATE KEY`), SEC1 (`EC PRIVATE KEY`) or PKCS#1 (`RSA PRIVATE KEY`).
    public convenience init(pem: String) throws(CryptoError) {
        let bio = try MemoryBIO(pem)
        guard let pointer = PEM_read_bio_PrivateKey(bio.pointer, nil, nil, nil) else {
            throw CryptoError.invalidPEM.withOpenSSLReason()
        }
        try self.init(EVPKey(taking: pointer))
    }

    /// The key as an unencrypted PKCS#8 `PRIVATE KEY` PEM block. Treat the result as a secret.
    public var pemRepresentation: String {
        get throws(CryptoError) {
            let bio = try MemoryBIO()
            guard PEM_write_bio_PrivateKey(bio.pointer, key.pointer, nil, nil, 0, nil, nil) == 1 else {
                throw CryptoError.keyExportFailed.withOpenSSLReason()
            }
            return bio.string()
        }
    }

    /// Signs `message` with `algorithm`, which must fit the key; ECDSA signatures come back as raw 64-byte R‖S.
    public func sign(_ message: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> [UInt8] {
        guard kind.fits(algorithm) else {
            throw CryptoError.algorithmKeyMismatch.with("\(algorithm) cannot be used with a \(kind) key")
        }
        switch algorithm {
        case .rsaPKCS1SHA256:
            return try digestSign(message, digest: EVP_sha256())
        case .ecdsaP256SHA256:
            let der = try digestSign(message, digest: EVP_sha256())
            guard let raw = ECDSASignature.raw(fromDER: der) else { throw CryptoError.signingFailed.with("bad DER from OpenSSL") }
            return raw
        case .ed25519:
            return try digestSign(message, digest: nil)
        }
    }

    private func digestSign(_ message: [UInt8], digest: OpaquePointer?) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.signingFailed.withOpenSSLReason() }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, digest, nil, key.pointer) == 1 else {
            throw CryptoError.signingFailed.withOpenSSLReason()
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw CryptoError.signingFailed.withOpenSSLReason()
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw CryptoError.signingFailed.withOpenSSLReason()
        }
        signature.removeLast(signature.count - length)
        return signature
    }
}
