import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's CSPRNG.
public enum SecureRandom {
    /// `count` random bytes. Stops the process if the CSPRNG fails, since nothing secure can continue then.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: count out of range")
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 {
                guard RAND_bytes(buffer.baseAddress, Int32(count)) == 1 else {
                    fatalError("RAND_bytes failed: \(OpenSSLErrors.drain())")
                }
            }
            initialized = count
        }
    }
}
