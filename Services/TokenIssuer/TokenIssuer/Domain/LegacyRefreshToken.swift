import Crypto
import JOSE

/// A refresh token of the releases before generations (``RefreshToken``): 256 random bits, base64url, of which
/// only the SHA-256 is stored (`issuer.refresh_tokens`). Read until the last can have expired: its first use
/// rotates its session into a generation.
///
/// A token those releases rotated has a successor HMAC-SHA-256(secret, token), the secret kept in the issuer
/// schema: a duplicate of that rotation inside the grace window gets it again.
struct LegacyRefreshToken: Sendable {
    /// The token as the app holds it.
    let value: String
    private let bytes: [UInt8]

    /// A fresh random token (the releases before made these; tests make them as those did).
    static func random() -> LegacyRefreshToken {
        let bytes = SecureRandom.bytes(32)
        return LegacyRefreshToken(value: Base64URL.encode(bytes), bytes: bytes)
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
    func successor(secret: [UInt8]) -> LegacyRefreshToken {
        let bytes = HMAC.sha256(key: secret, message: bytes)
        return LegacyRefreshToken(value: Base64URL.encode(bytes), bytes: bytes)
    }
}
