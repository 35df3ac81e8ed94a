/// A machine-readable error code from the backend's error envelope.
///
/// An open set, like the backend's own: a code this version does not know is kept as it is,
/// so a newer server breaks no app.
public struct APIErrorCode: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The code as sent, e.g. `INVALID_REFRESH_TOKEN`.
    public let rawValue: String

    /// Wraps a code.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The code as sent.
    public var description: String { rawValue }

    /// A field is missing, of the wrong type or out of range (400).
    public static let invalidRequest = APIErrorCode(rawValue: "INVALID_REQUEST")
    /// The provider token is not genuine or not for this app (401).
    public static let invalidProviderToken = APIErrorCode(rawValue: "INVALID_PROVIDER_TOKEN")
    /// The provider token has expired; sign in with the provider again (401).
    public static let providerTokenExpired = APIErrorCode(rawValue: "PROVIDER_TOKEN_EXPIRED")
    /// The token's nonce does not match the one sent (401).
    public static let nonceMismatch = APIErrorCode(rawValue: "NONCE_MISMATCH")
    /// No, a bad or an expired access token (401).
    public static let unauthorized = APIErrorCode(rawValue: "UNAUTHORIZED")
    /// The refresh token is unknown, expired or its session ended (401).
    public static let invalidRefreshToken = APIErrorCode(rawValue: "INVALID_REFRESH_TOKEN")
    /// A rotated refresh token was used again, so the server ended the session (401).
    public static let refreshTokenReused = APIErrorCode(rawValue: "REFRESH_TOKEN_REUSED")
    /// An operator suspended the member: no sign-in, link or refresh until they lift it (403). The app
    /// should sign out and tell the user to contact support.
    public static let memberSuspended = APIErrorCode(rawValue: "MEMBER_SUSPENDED")
    /// The provider is not configured on the server (404).
    public static let providerDisabled = APIErrorCode(rawValue: "PROVIDER_DISABLED")
    /// No such resource (404).
    public static let notFound = APIErrorCode(rawValue: "NOT_FOUND")
    /// The path exists, the method does not (405).
    public static let methodNotAllowed = APIErrorCode(rawValue: "METHOD_NOT_ALLOWED")
    /// The identity belongs to another member (409).
    public static let identityInUse = APIErrorCode(rawValue: "IDENTITY_IN_USE")
    /// The member's only identity cannot be unlinked (409).
    public static let lastIdentity = APIErrorCode(rawValue: "LAST_IDENTITY")
    /// The body is over the size limit (413).
    public static let payloadTooLarge = APIErrorCode(rawValue: "PAYLOAD_TOO_LARGE")
    /// The body is not `application/json` (415).
    public static let unsupportedMediaType = APIErrorCode(rawValue: "UNSUPPORTED_MEDIA_TYPE")
    /// Too many requests from this address; see `APIError.retryAfter` (429).
    public static let rateLimited = APIErrorCode(rawValue: "RATE_LIMITED")
    /// The provider could not be reached (502).
    public static let providerUnavailable = APIErrorCode(rawValue: "PROVIDER_UNAVAILABLE")
    /// The backend is temporarily down; see `APIError.retryAfter` (503).
    public static let serviceUnavailable = APIErrorCode(rawValue: "SERVICE_UNAVAILABLE")
    /// A backend service did not answer in time (504).
    public static let timeout = APIErrorCode(rawValue: "TIMEOUT")
    /// The server failed (500).
    public static let `internal` = APIErrorCode(rawValue: "INTERNAL")
    /// Client-side: the server answered with an error status but no error envelope (a proxy's page, say).
    public static let unexpectedResponse = APIErrorCode(rawValue: "UNEXPECTED_RESPONSE")
}
