/// A machine-readable error code, shared by every service reply and the HTTP error envelope.
///
/// A struct rather than an enum so that adding a code breaks no decoder: an unknown code
/// read from the wire is kept as it is.
public struct ErrorCode: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// A field is missing, of the wrong type or out of range.
    public static let invalidRequest = ErrorCode(rawValue: "INVALID_REQUEST")
    /// The provider token is not genuine or not for us.
    public static let invalidProviderToken = ErrorCode(rawValue: "INVALID_PROVIDER_TOKEN")
    /// The provider token has expired.
    public static let providerTokenExpired = ErrorCode(rawValue: "PROVIDER_TOKEN_EXPIRED")
    /// The token's nonce does not match the request's.
    public static let nonceMismatch = ErrorCode(rawValue: "NONCE_MISMATCH")
    /// No, a bad or an expired access token.
    public static let unauthorized = ErrorCode(rawValue: "UNAUTHORIZED")
    /// The refresh token is unknown, expired or its session ended.
    public static let invalidRefreshToken = ErrorCode(rawValue: "INVALID_REFRESH_TOKEN")
    /// The access token's sign-in is older than the change asks for (`REAUTHENTICATION_WINDOW`): sign in
    /// with the provider again, then retry.
    public static let reauthenticationRequired = ErrorCode(rawValue: "REAUTHENTICATION_REQUIRED")
    /// A rotated refresh token was used again: its session is ended.
    public static let refreshTokenReused = ErrorCode(rawValue: "REFRESH_TOKEN_REUSED")
    /// The provider is not configured.
    public static let providerDisabled = ErrorCode(rawValue: "PROVIDER_DISABLED")
    /// No such resource.
    public static let notFound = ErrorCode(rawValue: "NOT_FOUND")
    /// The path exists, the method does not.
    public static let methodNotAllowed = ErrorCode(rawValue: "METHOD_NOT_ALLOWED")
    /// The identity belongs to another member.
    public static let identityInUse = ErrorCode(rawValue: "IDENTITY_IN_USE")
    /// The member's only identity cannot be unlinked.
    public static let lastIdentity = ErrorCode(rawValue: "LAST_IDENTITY")
    /// An admin suspended the member: no login, link or refresh until the suspension is lifted (403).
    public static let memberSuspended = ErrorCode(rawValue: "MEMBER_SUSPENDED")
    /// The body is over the size limit.
    public static let payloadTooLarge = ErrorCode(rawValue: "PAYLOAD_TOO_LARGE")
    /// The body is not `application/json`.
    public static let unsupportedMediaType = ErrorCode(rawValue: "UNSUPPORTED_MEDIA_TYPE")
    /// Too many requests from this client address.
    public static let rateLimited = ErrorCode(rawValue: "RATE_LIMITED")
    /// The provider could not be reached or answered badly.
    public static let providerUnavailable = ErrorCode(rawValue: "PROVIDER_UNAVAILABLE")
    /// A service has no responders, or the database is down.
    public static let serviceUnavailable = ErrorCode(rawValue: "SERVICE_UNAVAILABLE")
    /// A service did not answer in time.
    public static let timeout = ErrorCode(rawValue: "TIMEOUT")
    /// Anything else; the details are in the logs, never in the answer.
    public static let `internal` = ErrorCode(rawValue: "INTERNAL")
}
