import Foundation

/// One entry of `GET /api/auth/sessions`.
public struct SessionResponse: Codable, Sendable, Equatable {
    /// The session ID.
    public var sessionId: String
    /// The app's device ID.
    public var deviceId: String
    /// When the session started.
    public var createdAt: Date
    /// When it was last refreshed.
    public var lastUsedAt: Date
    /// True for the session of the access token that asked.
    public var current: Bool

    /// Builds the HTTP view of a session; `currentSessionId` is the caller's `sid`.
    public init(_ summary: SessionSummary, currentSessionId: String) {
        sessionId = summary.sessionId
        deviceId = summary.deviceId
        createdAt = summary.createdAt
        lastUsedAt = summary.lastUsedAt
        current = summary.sessionId == currentSessionId
    }
}
