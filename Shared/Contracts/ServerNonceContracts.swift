/// Asks the token-verifier for a server nonce for a device (`auth.verifier.nonce`; `POST /api/auth/nonce`).
public struct NonceRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The app's device ID: the nonce is good for a login or link from this device only.
    public var deviceId: String

    /// Creates a request.
    public init(deviceId: String) {
        self.deviceId = deviceId
    }
}

/// A server nonce: opaque, good once, for `expiresIn` seconds, for the device it was issued to.
public struct IssuedNonce: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The nonce, to pass to the provider's SDK (hashed with SHA-256 for Apple) and send back in the login body.
    public var nonce: String
    /// Seconds until it expires.
    public var expiresIn: Int

    /// Creates one.
    public init(nonce: String, expiresIn: Int) {
        self.nonce = nonce
        self.expiresIn = expiresIn
    }

    /// How every server nonce begins (its format's version).
    public static let prefix = "n1."

    /// Whether `nonce` has a server nonce's form (not whether it is genuine).
    public static func looksIssued(_ nonce: String) -> Bool {
        nonce.hasPrefix(prefix)
    }
}

/// A server nonce the token-verifier found genuine, unexpired and the device's: the member-service records
/// it as used before anything else of the login or link, so it is good once, and forgets it once it expired.
public struct UsedNonce: Codable, Sendable, Equatable {
    /// Its unique part (base64url of 16 random bytes).
    public var id: String
    /// When it expires (seconds since 1970).
    public var expiresAt: Int64

    /// Creates one.
    public init(id: String, expiresAt: Int64) {
        self.id = id
        self.expiresAt = expiresAt
    }
}

/// Why a login or link that needs a server nonce (`REQUIRE_SERVER_NONCE`) was refused with
/// `INVALID_PROVIDER_TOKEN`: the `reason` of its error.
public enum NonceRefusal {
    /// None was sent.
    public static let required = "nonceRequired"
    /// Not one this server issued, issued for another device, or expired.
    public static let unknown = "nonceUnknown"
    /// Used before.
    public static let used = "nonceUsed"
}
