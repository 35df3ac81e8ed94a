import COpenSSL

/// AES-256-GCM authenticated encryption, for secrets kept at rest (such as a provider's refresh token).
///
/// The sealed form is `nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`, with a fresh random nonce each time.
public enum AESGCM {
    /// Length of the random nonce at the start of a sealed box.
    public static let nonceLength = 12
    /// Length of the authentication tag at the end of a sealed box.
    public static let tagLength = 16
    /// Required key length (AES-256).
    public static let keyLength = 32

    /// Encrypts and authenticates `plaintext` (and authenticates `associatedData`) under a 32-byte `key`.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        guard key.count == keyLength else { throw CryptoError.invalidKeyLength.with("AES-256-GCM needs a 32-byte key") }
        let nonce = SecureRandom.bytes(nonceLength)
        let context = try CipherContext()
        guard EVP_EncryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw CryptoError.encryptionFailed.withOpenSSLReason()
        }
        try context.update(associatedData, into: nil, error: .encryptionFailed)
        var sealed = nonce
        sealed.reserveCapacity(nonceLength + plaintext.count + tagLength)
        var body = [UInt8](repeating: 0, count: plaintext.count + 16)
        let written = try context.update(plaintext, into: &body, error: .encryptionFailed)
        sealed.append(contentsOf: body.prefix(written))
        var finalLength: Int32 = 0
        guard EVP_EncryptFinal_ex(context.pointer, &body, &finalLength) == 1 else {
            throw CryptoError.encryptionFailed.withOpenSSLReason()
        }
        var tag = [UInt8](repeating: 0, count: tagLength)
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &tag) == 1 else {
            throw CryptoError.encryptionFailed.withOpenSSLReason()
        }
        sealed.append(contentsOf: tag)
        return sealed
    }

    /// Checks and decrypts a box made by `seal`; throws `authenticationFailed` if anything was altered or the key is wrong.
    public static func open(_ sealed: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        guard key.count == keyLength else { throw CryptoError.invalidKeyLength.with("AES-256-GCM needs a 32-byte key") }
        guard sealed.count >= nonceLength + tagLength else {
            throw CryptoError.authenticationFailed.with("sealed box too short")
        }
        let nonce = Array(sealed[0..<nonceLength])
        let ciphertext = Array(sealed[nonceLength..<(sealed.count - tagLength)])
        var tag = Array(sealed[(sealed.count - tagLength)...])
        let context = try CipherContext()
        guard EVP_DecryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw CryptoError.authenticationFailed.withOpenSSLReason()
        }
        try context.update(associatedData, into: nil, error: .authenticationFailed)
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        let written = try context.update(ciphertext, into: &plaintext, error: .authenticationFailed)
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1 else {
            throw CryptoError.authenticationFailed.withOpenSSLReason()
        }
        var finalLength: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_DecryptFinal_ex(context.pointer, &scratch, &finalLength) == 1 else {
            OpenSSLErrors.clear()
            throw CryptoError.authenticationFailed
        }
        plaintext.removeLast(plaintext.count - written)
        return plaintext
    }
}

/// Owns one `EVP_CIPHER_CTX` for the duration of a single seal or open.
private final class CipherContext {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
        guard let pointer = EVP_CIPHER_CTX_new() else { throw CryptoError.encryptionFailed.withOpenSSLReason() }
        self.pointer = pointer
    }

    deinit {
        EVP_CIPHER_CTX_free(pointer)
    }

    /// Feeds `input` through the cipher; with `output` nil the input is associated data only. Returns bytes written.
    @discardableResult
    func update(_ input: [UInt8], into output: UnsafeMutablePointer<UInt8>?, error: CryptoError) throws(CryptoError) -> Int {
        guard !input.isEmpty else { return 0 }
        var length: Int32 = 0
        guard EVP_CipherUpdate(pointer, output, &length, input, Int32(input.count)) == 1 else {
            throw error.withOpenSSLReason()
        }
        return Int(length)
    }
}
