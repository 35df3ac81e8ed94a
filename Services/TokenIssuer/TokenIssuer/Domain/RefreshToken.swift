import Crypto
import JOSE

/// An opaque refresh token: 256 random bits, base64url. Only its SHA-256 is stored.
///
/// A rotated token's successor is HMAC-SHA-256(secret, token): as unpredictable as a random
/// token to anyone without the issuer's secret, and re-derivable, so a duplicate refresh
/// inside the grace window gets the same successor without the successor being stored.
struct RefreshToken: Sendable {
    /// The token as the app holds it.
    let value: String
    private let bytes: [UInt8]

    /// A fresh random token.
    static func random() -> RefreshToken {
        let bytes = SecureRandom.bytes(32)
        return RefreshToken(value: Base64URL.encode(bytes), bytes: bytes)
    }

    /// Parses a token an app sent; nil when it cannot be one of ours.
    init?(_ value: String) {
        guard value.utf8.count == 43, let bytes = Base64URL.decode(value), bytes.count == 32 else { return nil }
        self.value = value
        self.bytes = bytes
    }

    private init(value: String, bytes: [UInt8]) {
        self.value = value
        self.bytes = bytes
    }

    /// What the database keeps.
    var hash: [UInt8] { Digest.sha256(bytes) }

    /// The token that replaces this one on rotation.
    func successor(secret: [UInt8]) -> RefreshToken {
        let bytes = HMAC.sha256(key: secret, message: bytes)
        return RefreshToken(value: Base64URL.encode(bytes), bytes: bytes)
    }
}
