/// Links a verified identity to a member (`auth.member.link-identity`): sent by the token-verifier once it
/// proved the provider token of a ``LinkRequest``, never by the gateway.
public struct LinkIdentityRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member the identity is linked to (the Bearer's).
    public var memberId: Int64
    /// The member's own access token: the proof the member-service checks (`sub` must be `memberId`).
    public var accessToken: String
    /// The verified identity to link.
    public var identity: VerifiedIdentity
    /// The name the provider gave the app (Apple, first sign-in only).
    public var name: String?
    /// The email the provider gave the app (Apple, first sign-in only).
    public var email: String?
    /// The server nonce the verifier checked (`REQUIRE_SERVER_NONCE`), recorded as used first.
    public var nonce: UsedNonce?

    /// Creates a request.
    public init(memberId: Int64, accessToken: String, identity: VerifiedIdentity, name: String? = nil, email: String? = nil,
                nonce: UsedNonce? = nil) {
        self.memberId = memberId
        self.accessToken = accessToken
        self.identity = identity
        self.name = name
        self.email = email
        self.nonce = nonce
    }
}

/// Unlinks one provider's identity from a member (`auth.member.unlink-identity`); the member-service then
/// has the token-issuer end the sessions opened through it, and answers with those.
public struct UnlinkIdentityRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member.
    public var memberId: Int64
    /// The member's own access token: the proof the member-service checks (`sub` must be `memberId`).
    public var accessToken: String
    /// The provider whose identity is unlinked.
    public var provider: Provider

    /// Creates a request.
    public init(memberId: Int64, accessToken: String, provider: Provider) {
        self.memberId = memberId
        self.accessToken = accessToken
        self.provider = provider
    }
}
