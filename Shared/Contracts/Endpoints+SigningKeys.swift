import Foundation

extension Endpoints {
    /// token-issuer: start a signing-key rotation now instead of waiting for the key's age
    /// (`SIGNING_KEY_ROTATION`). Idempotent while a rotation is pending.
    public static let rotateSigningKeys = Endpoint<RotateSigningKeysRequest, SigningKeyRotation>("auth.issuer.rotate-keys")
}

/// Every token-issuer replica listens here (no queue group) and reloads its signing keys, so a
/// rotation made by one replica is known to all at once. Published by the replica that rotated.
public enum SigningKeyNotices {
    /// The subject of "the key set changed" notices (an empty body).
    public static let changed = "auth.issuer.keys-changed"
}

/// Asks for a signing-key rotation (`auth.issuer.rotate-keys`).
public struct RotateSigningKeysRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1

    /// Creates a request.
    public init() {}
}

/// The key that will sign next: published in the JWKS now, signing from `activatesAt`.
public struct SigningKeyRotation: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The next key's ID.
    public var kid: String
    /// When it starts signing (and the key it replaces retires).
    public var activatesAt: Date

    /// Creates a reply.
    public init(kid: String, activatesAt: Date) {
        self.kid = kid
        self.activatesAt = activatesAt
    }
}
