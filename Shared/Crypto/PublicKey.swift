import COpenSSL

/// A parsed public key (RSA, P-256 or Ed25519) ready to verify signatures; parse once, verify many times.
public final class PublicKey: Sendable {
    let key: EVPKey
    /// The key's type and size.
    public let kind: KeyKind

    init(_ key: EVPKey) throws(CryptoError) {
        self.key = key
        self.kind = try key.kind()
    }

    /// An RSA public key from its big-endian modulus and public exponent.
    ///
    /// Rejects an empty modulus and an exponent that is even or below 3; size policy is the caller's.
    public static func rsa(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) -> PublicKey {
        let n = modulus.drop { $0 == 0 }
        let e = exponent.drop { $0 == 0 }
        guard !n.isEmpty, n.count <= 2048, let lastN = n.last, lastN & 1 == 1 else {
            throw CryptoError.invalidKey.with("RSA modulus is empty, even or too large")
        }
        guard let lastE = e.last, lastE & 1 == 1, e.count > 1 || lastE >= 3, e.count <= 8 else {
            throw CryptoError.invalidKey.with("RSA public exponent must be odd and at least 3")
        }
        let params = try ParamBuilder()
        try params.push(bigNumber: Array(n), named: "n")
        try params.push(bigNumber: Array(e), named: "e")
        return try PublicKey(EVPKey.fromData(type: "RSA", params: params, selection: copenssl_selection_public_key()))
    }

    /// A P-256 public key from its 32-byte affine coordinates; throws `invalidKey` if the point is not on the curve.
    public static func p256(x: [UInt8], y: [UInt8]) throws(CryptoError) -> PublicKey {
        guard x.count == 32, y.count == 32 else {
            throw CryptoError.invalidKey.with("P-256 coordinates must be 32 bytes each")
        }
        let params = try ParamBuilder()
        try params.push(utf8: "prime256v1", named: "group")
        try params.push(octets: [0x04] + x + y, named: "pub")
        let key = try EVPKey.fromData(type: "EC", params: params, selection: copenssl_selection_public_key())
        try key.checkPublic()
        return try PublicKey(key)
    }

    /// An Ed25519 public key from its 32 raw bytes.
    public static func ed25519(_ raw: [UInt8]) throws(CryptoError) -> PublicKey {
        guard raw.count == 32 else { throw CryptoError.invalidKey.with("Ed25519 public keys are 32 bytes") }
        guard let pointer = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, raw, raw.count) else {
            throw CryptoError.invalidKey.withOpenSSLReason()
        }
        return try PublicKey(EVPKey(taking: pointer))
    }

    /// A public key from PEM: a `PUBLIC KEY` (SPKI) block, or a `CERTIFICATE` whose subject key is used.
    ///
    /// The certificate's validity and issuer are not checked; only its key is taken.
    public static func pem(_ pem: String) throws(CryptoError) -> PublicKey {
        let bio = try MemoryBIO(pem)
        if let pointer = PEM_read_bio_PUBKEY(bio.pointer, nil, nil, nil) {
            return try PublicKey(EVPKey(taking: pointer))
        }
        OpenSSLErrors.clear()
        let certificateBIO = try MemoryBIO(pem)
        guard let certificate = PEM_read_bio_X509(certificateBIO.pointer, nil, nil, nil) else {
            throw CryptoError.invalidPEM.withOpenSSLReason()
        }
        defer { X509_free(certificate) }
        guard let pointer = X509_get_pubkey(certificate) else { throw CryptoError.invalidPEM.withOpenSSLReason() }
        return try PublicKey(EVPKey(taking: pointer))
    }

    /// The key as an SPKI `PUBLIC KEY` PEM block.
    public var pemRepresentation: String {
        get throws(CryptoError) {
            let bio = try MemoryBIO()
            guard PEM_write_bio_PUBKEY(bio.pointer, key.pointer) == 1 else {
                throw CryptoError.keyExportFailed.withOpenSSLReason()
            }
            return bio.string()
        }
    }

    /// Whether `signature` is a valid signature of `message` under this key with `algorithm`.
    ///
    /// Returns false when the algorithm does not fit the key's type. For ECDSA the signature must be the
    /// 64-byte R‖S form used by JWS; DER or any other length is refused.
    public func verify(signature: [UInt8], message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        guard kind.fits(algorithm) else { return false }
        let result: Bool
        switch algorithm {
        case .rsaPKCS1SHA256:
            result = digestVerify(signature: signature, message: message, digest: EVP_sha256())
        case .ecdsaP256SHA256:
            guard signature.count == 64, let der = ECDSASignature.der(fromRaw: signature) else { return false }
            result = digestVerify(signature: der, message: message, digest: EVP_sha256())
        case .ed25519:
            guard signature.count == 64 else { return false }
            result = digestVerify(signature: signature, message: message, digest: nil)
        }
        if !result { OpenSSLErrors.clear() }
        return result
    }

    private func digestVerify(signature: [UInt8], message: [UInt8], digest: OpaquePointer?) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, digest, nil, key.pointer) == 1 else { return false }
        return signature.withUnsafeBufferPointer { signatureBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                EVP_DigestVerify(context, signatureBuffer.baseAddress, signatureBuffer.count,
                                 messageBuffer.baseAddress, messageBuffer.count) == 1
            }
        }
    }
}
