import COpenSSL

extension PublicKey {
    /// The RSA modulus and public exponent (big-endian, no leading zeros), or nil for a non-RSA key.
    public var rsaComponents: (modulus: [UInt8], exponent: [UInt8])? {
        guard case .rsa = kind,
              let modulus = key.bigNumberParameter("n"),
              let exponent = key.bigNumberParameter("e") else { return nil }
        return (modulus, exponent)
    }

    /// The P-256 affine coordinates, 32 bytes each, or nil for a non-P-256 key.
    public var p256Coordinates: (x: [UInt8], y: [UInt8])? {
        guard kind == .p256,
              let x = key.bigNumberParameter("qx", length: 32),
              let y = key.bigNumberParameter("qy", length: 32) else { return nil }
        return (x, y)
    }

    /// The 32 raw bytes of an Ed25519 key, or nil for another kind.
    public var ed25519Raw: [UInt8]? {
        guard kind == .ed25519 else { return nil }
        var raw = [UInt8](repeating: 0, count: 32)
        var length = raw.count
        guard EVP_PKEY_get_raw_public_key(key.pointer, &raw, &length) == 1, length == 32 else {
            OpenSSLErrors.clear()
            return nil
        }
        return raw
    }
}
