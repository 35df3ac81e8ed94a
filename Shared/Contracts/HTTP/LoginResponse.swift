import Foundation

/// The answer to every login and refresh (the seed's shape, kept so existing apps work).
public struct LoginResponse: Codable, Sendable, Equatable {
    /// The service access token (JWT).
    public var accessToken: String
    /// The opaque refresh token.
    public var refreshToken: String
    /// Always `Bearer`.
    public var tokenType: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    /// The member's ID, a JSON number.
    public var memberId: Int64
    /// False only on the login that created the member.
    public var isExistingMember: Bool

    /// Creates a response.
    public init(accessToken: String, refreshToken: String, expiresIn: Int, memberId: Int64, isExistingMember: Bool) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = "Bearer"
        self.expiresIn = expiresIn
        self.memberId = memberId
        self.isExistingMember = isExistingMember
    }
}

/// `GET /api/members/me`.
public struct MemberResponse: Codable, Sendable, Equatable {
    /// The member's ID.
    public var memberId: Int64
    /// The member's email, if known.
    public var email: String?
    /// True only when a provider vouched for `email`; an email the app sent is shown with false.
    public var emailVerified: Bool
    /// The member's name, if known.
    public var name: String?
    /// The member's picture (an `https` URL from a provider), if known.
    public var pictureUrl: String?
    /// The member's IANA time zone, if known.
    public var timezone: String?
    /// The member's BCP 47 locale, if known.
    public var locale: String?
    /// The linked identities.
    public var identities: [IdentityResponse]
    /// When the member was created.
    public var createdAt: Date

    /// Builds the HTTP view of a profile.
    public init(_ profile: MemberProfile) {
        memberId = profile.memberId
        email = profile.email
        emailVerified = profile.emailVerified
        name = profile.name
        pictureUrl = profile.pictureUrl
        timezone = profile.timezone
        locale = profile.locale
        identities = profile.identities.map {
            IdentityResponse(provider: $0.provider.rawValue, email: $0.email, emailVerified: $0.emailVerified, linkedAt: $0.linkedAt)
        }
        createdAt = profile.createdAt
    }
}

/// One linked identity in `GET /api/members/me`.
public struct IdentityResponse: Codable, Sendable, Equatable {
    /// `GOOGLE`, `APPLE`, `NAVER` or `KAKAO`.
    public var provider: String
    /// The identity's email: the provider's, or the one the app sent (Apple's first login).
    public var email: String?
    /// True only when the provider vouched for `email`.
    public var emailVerified: Bool
    /// When it was linked.
    public var linkedAt: Date
}

/// `{"data": ...}`, the success envelope.
public struct DataEnvelope<Payload: Codable & Sendable>: Codable, Sendable {
    /// The answer.
    public var data: Payload

    /// Wraps `data`.
    public init(_ data: Payload) {
        self.data = data
    }
}

/// `{"error": {"code", "message"}}`, the failure envelope.
public struct ErrorEnvelope: Codable, Sendable, Equatable {
    /// The failure.
    public var error: ServiceFailure

    /// Wraps `error`.
    public init(_ error: ServiceFailure) {
        self.error = error
    }
}
