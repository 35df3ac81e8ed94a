import COpenSSL

/// One-shot message digests.
public enum Digest {
    /// The SHA-256 digest (32 bytes) of `bytes`.
    public static func sha256(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ sha256(buffer: UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(bytes).withUnsafeBytes { sha256(buffer: $0) }
    }

    /// The SHA-256 digest (32 bytes) of the UTF-8 encoding of `string`.
    public static func sha256(_ string: String) -> [UInt8] {
        var string = string
        return string.withUTF8 { sha256(buffer: UnsafeRawBufferPointer($0)) }
    }

    /// The SHA-256 digest of the UTF-8 encoding of `string`, as 64 lowercase hex digits.
    public static func sha256Hex(_ string: String) -> String {
        Hex.encode(sha256(string))
    }

    private static func sha256(buffer: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { output, count in
            // SHA256 cannot fail for in-memory input; it returns its output pointer.
            _ = SHA256(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count, output.baseAddress)
            count = 32
        }
    }
}
