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
    /// The device's platform (`iOS 18.1`), as the login said or its `User-Agent` named; absent when unknown.
    public var platform: String?
    /// The app's name and version (`MyApp 2.3.1`), likewise.
    public var appVersion: String?

    /// Builds the HTTP view of a session; `currentSessionId` is the caller's `sid`.
    public init(_ summary: SessionSummary, currentSessionId: String) {
        sessionId = summary.sessionId
        deviceId = summary.deviceId
        createdAt = summary.createdAt
        lastUsedAt = summary.lastUsedAt
        current = summary.sessionId == currentSessionId
        platform = summary.platform
        appVersion = summary.appVersion
    }
}
