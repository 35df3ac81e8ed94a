import COpenSSL

/// An X25519 key pair for key agreement: two parties that each hold one and know the other's public
/// key derive the same symmetric key, which no one who sees only the public keys can.
public struct X25519KeyPair: Sendable {
    /// The length of a public key.
    public static let publicKeyLength = 32

    private let key: EVPKey
    /// The 32-byte public key, to give the other party.
    public let publicKey: [UInt8]

    /// A new random key pair.
    public static func generate() throws(CryptoError) -> X25519KeyPair {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "X25519", nil) else {
            throw CryptoError.keyGenerationFailed.withOpenSSLReason()
        }
        defer { EVP_PKEY_CTX_free(context) }
        var pointer: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_keygen(context, &pointer) == 1, let pointer else {
            throw CryptoError.keyGenerationFailed.withOpenSSLReason()
        }
        let key = EVPKey(taking: pointer)
        var publicKey = [UInt8](repeating: 0, count: publicKeyLength)
        var length = publicKeyLength
        guard EVP_PKEY_get_raw_public_key(key.pointer, &publicKey, &length) == 1, length == publicKeyLength else {
            throw CryptoError.keyExportFailed.withOpenSSLReason()
        }
        return X25519KeyPair(key: key, publicKey: publicKey)
    }

    /// The 32-byte key this pair and `peer` (the other party's public key) agree on: HKDF-SHA-256 over their
    /// X25519 secret, with `salt` and `info` (both sides must give the same). Throws `invalidKey` for a peer
    /// key that is not 32 bytes, or one whose shared secret is all zeros (a small-order point).
    public func agreedKey(with peer: [UInt8], salt: [UInt8], info: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard peer.count == Self.publicKeyLength,
              let peerKey = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, peer, peer.count) else {
            throw CryptoError.invalidKey.with("an X25519 public key is 32 bytes")
        }
        defer { EVP_PKEY_free(peerKey) }
        guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else { throw CryptoError.invalidKey.withOpenSSLReason() }
        defer { EVP_PKEY_CTX_free(context) }
        var secret = [UInt8](repeating: 0, count: 32)
        var length = secret.count
        // OpenSSL refuses a peer whose shared secret is all zeros.
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peerKey) == 1,
              EVP_PKEY_derive(context, &secret, &length) == 1, length == 32 else {
            throw CryptoError.invalidKey.withOpenSSLReason()
        }
        return try HKDF.sha256(key: secret, salt: salt, info: info, length: 32)
    }
}

/// HKDF (RFC 5869) with SHA-256, by OpenSSL.
public enum HKDF {
    /// `length` bytes derived from `key` with `salt` and `info`.
    public static func sha256(key: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else { throw CryptoError.invalidKey.withOpenSSLReason() }
        defer { EVP_PKEY_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: length)
        var written = length
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1,
              EVP_PKEY_CTX_set1_hkdf_salt(context, salt, Int32(salt.count)) == 1,
              EVP_PKEY_CTX_set1_hkdf_key(context, key, Int32(key.count)) == 1,
              EVP_PKEY_CTX_add1_hkdf_info(context, info, Int32(info.count)) == 1,
              EVP_PKEY_derive(context, &output, &written) == 1, written == length else {
            throw CryptoError.invalidKey.withOpenSSLReason()
        }
        return output
    }
}
