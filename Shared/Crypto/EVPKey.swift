import COpenSSL

/// Owns one `EVP_PKEY` and frees it when the last reference goes.
///
/// `@unchecked Sendable` is safe because the key is never mutated after construction, and OpenSSL 3
/// allows one `EVP_PKEY` to be used for sign/verify from many threads at once as long as each operation
/// creates its own `EVP_MD_CTX` / `EVP_PKEY_CTX`, which every caller in this module does.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer` (one reference).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// The key's type as seen by this module; throws `unsupportedKey` for anything else.
    func kind() throws(CryptoError) -> KeyKind {
        if EVP_PKEY_is_a(pointer, "RSA") == 1 {
            return .rsa(bits: Int(EVP_PKEY_get_bits(pointer)))
        }
        if EVP_PKEY_is_a(pointer, "ED25519") == 1 {
            return .ed25519
        }
        if EVP_PKEY_is_a(pointer, "EC") == 1 {
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_utf8_string_param(pointer, "group", &name, name.count, &length) == 1 else {
                throw CryptoError.unsupportedKey.withOpenSSLReason()
            }
            let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard group == "prime256v1" || group == "P-256" else {
                throw CryptoError.unsupportedKey.with("EC group \(group)")
            }
            return .p256
        }
        throw CryptoError.unsupportedKey.with("key type is not RSA, EC P-256 or Ed25519")
    }
}
