/// Links a verified identity to a member (`auth.member.link-identity`).
public struct LinkIdentityRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member the identity is linked to (the Bearer's).
    public var memberId: Int64
    /// The identity the verifier proved.
    public var identity: VerifiedIdentity
    /// A name the app sent (Apple); stored on the identity where the token has none.
    public var name: String?
    /// An email the app sent (Apple); stored on the identity only where the token has none.
    public var email: String?

    /// Creates a request.
    public init(memberId: Int64, identity: VerifiedIdentity, name: String? = nil, email: String? = nil) {
        self.memberId = memberId
        self.identity = identity
        self.name = name
        self.email = email
    }
}

/// Unlinks a member's identity of one provider (`auth.member.unlink-identity`).
public struct UnlinkIdentityRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member.
    public var memberId: Int64
    /// The provider whose identity is unlinked.
    public var provider: Provider

    /// Creates a request.
    public init(memberId: Int64, provider: Provider) {
        self.memberId = memberId
        self.provider = provider
    }
}
