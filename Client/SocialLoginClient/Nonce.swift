#if canImport(CryptoKit)
import CryptoKit
#endif
import Foundation

/// A random nonce for a sign-in request and its SHA-256: give the hash to the provider's SDK
/// (`ASAuthorizationAppleIDRequest.nonce = nonce.sha256`) and send the raw value to the backend
/// (`rawNonce`), which checks that the token carries its hash. A token replayed from another
/// sign-in then fails with `NONCE_MISMATCH`.
public struct Nonce: Sendable, Equatable {
    /// The raw nonce, sent to the backend.
    public let raw: String
    /// The lowercase hex SHA-256 of `raw`, given to the provider.
    public let sha256: String

    /// Characters of a random nonce: URL- and header-safe, 64 of them, so each carries 6 bits.
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-._")

    /// Wraps a nonce the app already made.
    public init(raw: String) {
        self.raw = raw
        self.sha256 = Self.sha256Hex(raw)
    }

    /// A new nonce of `length` characters from the system's secure random generator
    /// (32 characters carry 192 bits).
    public static func random(length: Int = 32) -> Nonce {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<max(length, 1)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return Nonce(raw: String(characters))
    }

    /// The lowercase hex SHA-256 of the UTF-8 bytes of `string`: CryptoKit where it exists,
    /// a portable implementation elsewhere.
    public static func sha256Hex(_ string: String) -> String {
        #if canImport(CryptoKit)
        let digest = Array(SHA256.hash(data: Data(string.utf8)))
        #else
        let digest = PortableSHA256.hash(Array(string.utf8))
        #endif
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
