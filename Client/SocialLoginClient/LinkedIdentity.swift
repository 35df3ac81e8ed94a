import Foundation

/// One provider identity linked to a member.
public struct LinkedIdentity: Decodable, Sendable, Equatable {
    /// The provider.
    public let provider: IdentityProvider
    /// The email that provider gave, if any.
    public let email: String?
    /// When it was linked.
    public let linkedAt: Date
}
