import COpenSSL

extension PrivateKey {
    /// An RSA private key from its big-endian components (as in a private JWK: n, e, d, p, q, dp, dq, qi).
    ///
    /// OpenSSL's pairwise check must pass, so inconsistent components are refused.
    public static func rsa(
        modulus: [UInt8], publicExponent: [UInt8], privateExponent: [UInt8],
        prime1: [UInt8], prime2: [UInt8], exponent1: [UInt8], exponent2: [UInt8], coefficient: [UInt8]
    ) throws(CryptoError) -> PrivateKey {
        let params = try ParamBuilder()
        try params.push(bigNumber: modulus, named: "n")
        try params.push(bigNumber: publicExponent, named: "e")
        try params.push(bigNumber: privateExponent, named: "d")
        try params.push(bigNumber: prime1, named: "rsa-factor1")
        try params.push(bigNumber: prime2, named: "rsa-factor2")
        try params.push(bigNumber: exponent1, named: "rsa-exponent1")
        try params.push(bigNumber: exponent2, named: "rsa-exponent2")
        try params.push(bigNumber: coefficient, named: "rsa-coefficient1")
        let key = try EVPKey.fromData(type: "RSA", params: params, selection: copenssl_selection_keypair())
        try key.checkPair()
        return try PrivateKey(key)
    }

    /// A P-256 private key from its 32-byte public coordinates and private scalar; refused if they do not match.
    public static func p256(x: [UInt8], y: [UInt8], d: [UInt8]) throws(CryptoError) -> PrivateKey {
        guard x.count == 32, y.count == 32, d.count == 32 else {
            throw CryptoError.invalidKey.with("P-256 coordinates and scalar must be 32 bytes each")
        }
        let params = try ParamBuilder()
        try params.push(utf8: "prime256v1", named: "group")
        try params.push(octets: [0x04] + x + y, named: "pub")
        try params.push(bigNumber: d, named: "priv")
        let key = try EVPKey.fromData(type: "EC", params: params, selection: copenssl_selection_keypair())
        try key.checkPair()
        return try PrivateKey(key)
    }

    /// An Ed25519 private key from its 32-byte seed (the JWK `d`).
    public static func ed25519(seed: [UInt8]) throws(CryptoError) -> PrivateKey {
        guard seed.count == 32 else { throw CryptoError.invalidKey.with("Ed25519 seeds are 32 bytes") }
        guard let pointer = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, seed.count) else {
            throw CryptoError.invalidKey.withOpenSSLReason()
        }
        return try PrivateKey(EVPKey(taking: pointer))
    }
}

extension EVPKey {
    /// Generates a key of `type`, letting `configure` set parameters (group, size) on the context first.
    static func generate(type: String, configure: (OpaquePointer) -> Int32) throws(CryptoError) -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            throw CryptoError.keyGenerationFailed.withOpenSSLReason()
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) == 1 else {
            throw CryptoError.keyGenerationFailed.withOpenSSLReason()
        }
        var pointer: OpaquePointer?
        guard EVP_PKEY_generate(context, &pointer) == 1, let pointer else {
            throw CryptoError.keyGenerationFailed.withOpenSSLReason()
        }
        return EVPKey(taking: pointer)
    }

    /// A new key holding only the public half, so a `PublicKey` never carries private material.
    func publicOnly() throws(CryptoError) -> EVPKey {
        let length = i2d_PUBKEY(pointer, nil)
        guard length > 0 else { throw CryptoError.keyExportFailed.withOpenSSLReason() }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pointer, &cursor)
        }
        guard written == length else { throw CryptoError.keyExportFailed.withOpenSSLReason() }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CryptoError.keyExportFailed.withOpenSSLReason() }
        return EVPKey(taking: parsed)
    }
}
