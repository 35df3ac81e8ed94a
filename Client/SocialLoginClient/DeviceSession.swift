import Foundation

/// One of the member's sessions (`GET /api/auth/sessions`): one per device.
public struct DeviceSession: Decodable, Sendable, Equatable {
    /// The session's ID, for `AuthClient.endSession(_:)`.
    public let sessionId: String
    /// The device it belongs to.
    public let deviceId: String
    /// When it started.
    public let createdAt: Date
    /// When its refresh token was last used.
    public let lastUsedAt: Date
    /// True for the session of the caller.
    public let current: Bool
    /// The platform its login named (`iOS 18.1`), if it named one: the app's word, not proof.
    public let platform: String?
    /// The app name and version its login named (`MyApp 2.3.1`), if it named them.
    public let appVersion: String?
}
