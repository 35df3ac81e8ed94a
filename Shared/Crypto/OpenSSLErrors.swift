import COpenSSL

/// Access to OpenSSL's per-thread error queue.
enum OpenSSLErrors {
    /// Returns the reason of the oldest queued error (or an empty string) and empties the queue,
    /// so failures on one call never leak into the next call on this thread.
    static func drain() -> String {
        let first = ERR_get_error()
        ERR_clear_error()
        guard first != 0 else { return "" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(first, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Empties this thread's error queue after an expected failure (a signature that does not verify).
    static func clear() {
        ERR_clear_error()
    }
}
