import COpenSSL

/// Compares two byte arrays in time that depends only on their length, not their contents.
///
/// Arrays of different lengths are unequal (the length itself is not treated as secret).
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return a.withUnsafeBytes { left in
        b.withUnsafeBytes { right in
            CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0
        }
    }
}
