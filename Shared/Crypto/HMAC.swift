import COpenSSL

/// One-shot HMAC.
public enum HMAC {
    /// HMAC-SHA-256 of `message` under `key` (32 bytes).
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var length: UInt32 = 0
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        let result = key.withUnsafeBytes { keyBuffer in
            message.withUnsafeBytes { messageBuffer in
                COpenSSL.HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(key.count),
                     messageBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
                     &output, &length)
            }
        }
        // HMAC-SHA-256 fails only on allocation failure inside OpenSSL, which we cannot recover from.
        guard result != nil, length == 32 else { fatalError("HMAC-SHA-256 failed: \(OpenSSLErrors.drain())") }
        output.removeLast(output.count - 32)
        return output
    }
}
