import Foundation

/// What a `TokenStore` keeps for the signed-in user.
public struct StoredTokens: Codable, Sendable, Equatable {
    /// The service access token (a JWT), sent as `Authorization: Bearer`.
    public var accessToken: String
    /// The opaque refresh token; it rotates on every refresh.
    public var refreshToken: String
    /// When the access token expires (computed from `expiresIn` when it was received).
    public var expiresAt: Date
    /// The member the tokens belong to.
    public var memberId: Int64

    /// Creates a value.
    public init(accessToken: String, refreshToken: String, expiresAt: Date, memberId: Int64) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.memberId = memberId
    }
}
