import Foundation

extension Endpoints {
    /// token-verifier: verify an Apple server-to-server notification (a JWS signed like an
    /// identity token) and return the event inside it.
    public static let verifyAppleNotification = Endpoint<AppleNotificationRequest, AppleNotification>("auth.verifier.apple-notification")
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

/// A verified Apple notification event (the `events` claim, which Apple sends as a JSON string).
public struct AppleNotification: Codable, Sendable, Equatable {
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

    /// Creates an event.
    public init(type: String, subject: String, email: String? = nil, isPrivateEmail: Bool? = nil, eventTime: Date? = nil) {
        self.type = type
        self.subject = subject
        self.email = email
        self.isPrivateEmail = isPrivateEmail
        self.eventTime = eventTime
    }
}
