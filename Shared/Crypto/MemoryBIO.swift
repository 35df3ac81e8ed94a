import COpenSSL

/// Owns a memory `BIO`, either reading from a copy of a string or collecting output.
final class MemoryBIO {
    let pointer: OpaquePointer

    /// A read-only BIO over a copy of `text`'s UTF-8 bytes.
    init(_ text: String) throws(CryptoError) {
        let bytes = Array(text.utf8)
        // BIO_new_mem_buf does not copy, so copy into a fresh memory BIO instead.
        guard let pointer = BIO_new(BIO_s_mem()) else { throw CryptoError.invalidPEM.withOpenSSLReason() }
        self.pointer = pointer
        guard bytes.isEmpty || BIO_write(pointer, bytes, Int32(bytes.count)) == Int32(bytes.count) else {
            throw CryptoError.invalidPEM.withOpenSSLReason()
        }
    }

    /// An empty BIO that collects what OpenSSL writes into it.
    init() throws(CryptoError) {
        guard let pointer = BIO_new(BIO_s_mem()) else { throw CryptoError.keyExportFailed.withOpenSSLReason() }
        self.pointer = pointer
    }

    deinit {
        BIO_free(pointer)
    }

    /// Everything written so far, as UTF-8 text.
    func string() -> String {
        var data: UnsafeMutablePointer<CChar>?
        let length = copenssl_bio_get_mem_data(pointer, &data)
        guard length > 0, let data else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
