import Foundation

extension Endpoints {
    /// token-verifier: verify an Apple server-to-server notification (a JWS signed like an identity token),
    /// then hand the event inside it to the member-service (`auth.member.apple-notification`), which answers
    /// the caller with what it did.
    public static let verifyAppleNotification = Endpoint<AppleNotificationRequest, AppleNotificationOutcome>("auth.verifier.apple-notification")
}

/// The body Apple posts to `/api/auth/apple/notifications`, passed on as it came.
public struct AppleNotificationRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The compact JWS from Apple's `{"payload": "..."}`.
    public var payload: String

    /// Creates a request.
    public init(payload: String) {
        self.payload = payload
    }
}

/// A verified Apple notification event (the `events` claim, which Apple sends as a JSON string),
/// with the notification's `jti` and `iat`.
public struct AppleNotification: Codable, Sendable, Equatable {
    /// How old a notification (its `iat`) may be: the token-verifier refuses older ones, so the
    /// member-service need remember a handled `jti` no longer than this.
    public static let maxAge: Duration = .seconds(7 * 86_400)

    /// The contract version (1).
    public var v: Int = 1
    /// `consent-revoked`, `account-delete`, `email-disabled` or `email-enabled`.
    public var type: String
    /// The Apple user ID (`sub` of the identity tokens).
    public var subject: String
    /// The email the event concerns, if any.
    public var email: String?
    /// Whether that email is a private relay address.
    public var isPrivateEmail: Bool?
    /// When Apple says the event happened.
    public var eventTime: Date?
    /// The notification's unique ID (`jti`): each takes effect once.
    public var jti: String
    /// When Apple signed the notification (`iat`).
    public var issuedAt: Date

    /// Creates an event.
    public init(type: String, subject: String, email: String? = nil, isPrivateEmail: Bool? = nil, eventTime: Date? = nil,
                jti: String, issuedAt: Date) {
        self.type = type
        self.subject = subject
        self.email = email
        self.isPrivateEmail = isPrivateEmail
        self.eventTime = eventTime
        self.jti = jti
        self.issuedAt = issuedAt
    }
}
