import COpenSSL

/// Collects key parameters for `EVP_PKEY_fromdata`, owning the builder and the BIGNUMs pushed into it.
final class ParamBuilder {
    private let builder: OpaquePointer
    private var bigNumbers: [OpaquePointer] = []
    // OSSL_PARAM_BLD keeps the pointers it is given (parameter names, strings, octets) until
    // `OSSL_PARAM_BLD_to_param`, so every one of them is copied here and kept alive with the builder.
    private var buffers: [UnsafeMutableRawBufferPointer] = []

    init() throws(CryptoError) {
        guard let builder = OSSL_PARAM_BLD_new() else { throw CryptoError.invalidKey.withOpenSSLReason() }
        self.builder = builder
    }

    deinit {
        OSSL_PARAM_BLD_free(builder)
        for number in bigNumbers { BN_clear_free(number) }
        for buffer in buffers {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.deallocate()
        }
    }

    /// Adds an unsigned big-endian integer.
    func push(bigNumber bytes: [UInt8], named name: String) throws(CryptoError) {
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw CryptoError.invalidKey.withOpenSSLReason() }
        bigNumbers.append(number)
        guard OSSL_PARAM_BLD_push_BN(builder, retainedName(name), number) == 1 else { throw CryptoError.invalidKey.withOpenSSLReason() }
    }

    /// Adds a UTF-8 string.
    func push(utf8 value: String, named name: String) throws(CryptoError) {
        let bytes = Array(value.utf8) + [0]
        let buffer = retained(bytes)
        let cString = buffer.baseAddress!.assumingMemoryBound(to: CChar.self)
        guard OSSL_PARAM_BLD_push_utf8_string(builder, retainedName(name), cString, bytes.count - 1) == 1 else {
            throw CryptoError.invalidKey.withOpenSSLReason()
        }
    }

    /// Adds an octet string.
    func push(octets: [UInt8], named name: String) throws(CryptoError) {
        let buffer = retained(octets)
        guard OSSL_PARAM_BLD_push_octet_string(builder, retainedName(name), buffer.baseAddress, octets.count) == 1 else {
            throw CryptoError.invalidKey.withOpenSSLReason()
        }
    }

    /// Builds the parameter array and passes it to `body`; the array is freed afterwards.
    func withParams<T>(_ body: (UnsafeMutablePointer<OSSL_PARAM>) throws(CryptoError) -> T) throws(CryptoError) -> T {
        guard let params = OSSL_PARAM_BLD_to_param(builder) else { throw CryptoError.invalidKey.withOpenSSLReason() }
        defer { OSSL_PARAM_free(params) }
        return try body(params)
    }

    private func retainedName(_ name: String) -> UnsafePointer<CChar> {
        UnsafePointer(retained(Array(name.utf8) + [0]).baseAddress!.assumingMemoryBound(to: CChar.self))
    }

    private func retained(_ bytes: [UInt8]) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        buffers.append(buffer)
        return buffer
    }
}

extension EVPKey {
    /// Builds a key of `type` ("RSA", "EC") from parameters, for the given selection (public key or key pair).
    static func fromData(type: String, params: ParamBuilder, selection: Int32) throws(CryptoError) -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw CryptoError.invalidKey.withOpenSSLReason() }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw CryptoError.invalidKey.withOpenSSLReason() }
        let pointer: OpaquePointer = try params.withParams { (params) throws(CryptoError) -> OpaquePointer in
            var pointer: OpaquePointer?
            guard EVP_PKEY_fromdata(context, &pointer, selection, params) == 1, let pointer else {
                throw CryptoError.invalidKey.withOpenSSLReason()
            }
            return pointer
        }
        return EVPKey(taking: pointer)
    }

    /// Runs OpenSSL's full public-key check (for EC: the point is on the curve and not at infinity).
    func checkPublic() throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else { throw CryptoError.invalidKey.withOpenSSLReason() }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else { throw CryptoError.invalidKey.withOpenSSLReason().with("public key check failed") }
    }

    /// Runs OpenSSL's pairwise check: the private half matches the public half.
    func checkPair() throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else { throw CryptoError.invalidKey.withOpenSSLReason() }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_pairwise_check(context) == 1 else { throw CryptoError.invalidKey.withOpenSSLReason().with("private key does not match public key") }
    }

    /// Reads a BIGNUM parameter ("n", "e", "qx", ...) as unsigned big-endian bytes, left-padded to `length` if given.
    func bigNumberParameter(_ name: String, length: Int? = nil) -> [UInt8]? {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, name, &number) == 1, let number else {
            OpenSSLErrors.clear()
            return nil
        }
        defer { BN_free(number) }
        let size = length ?? Int((BN_num_bits(number) + 7) / 8)
        var bytes = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(number, &bytes, Int32(size)) == Int32(size) else {
            OpenSSLErrors.clear()
            return nil
        }
        return bytes
    }
}
