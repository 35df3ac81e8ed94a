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

    /// The first token of the session a login's attempts start (`attemptKey`, the member and the device under
    /// the issuer's secret): every attempt of one login derives the same, so the session it names is that
    /// login's, whichever attempt came first. As unpredictable as a random token without the secret.
    static func first(ofLogin attemptKey: String, memberId: Int64, deviceId: String, secret: [UInt8]) -> RefreshToken {
        let message = Array("social-login first refresh token v1".utf8) + [0] + Array(attemptKey.utf8) + [0]
            + Array(String(memberId).utf8) + [0] + Array(deviceId.utf8)
        let bytes = HMAC.sha256(key: secret, message: message)
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
