/// Asks the token-verifier to prove a provider token (`auth.verifier.verify`).
public struct VerifyRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// Which provider issued the token.
    public var provider: Provider
    /// The ID token (Google, Apple, Kakao) or access token (Naver).
    public var token: String
    /// The raw nonce the app sent to the provider, if any.
    public var nonce: String?
    /// Apple's one-time authorization code, if the app sent it.
    public var authorizationCode: String?

    /// Creates a request.
    public init(provider: Provider, token: String, nonce: String? = nil, authorizationCode: String? = nil) {
        self.provider = provider
        self.token = token
        self.nonce = nonce
        self.authorizationCode = authorizationCode
    }
}

/// What a genuine provider token says about its user.
public struct VerifiedIdentity: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The provider.
    public var provider: Provider
    /// The provider's stable user ID (`sub`, or Naver's `id`).
    public var subject: String
    /// The email the provider asserts, if any.
    public var email: String?
    /// Whether the provider verified that email.
    public var emailVerified: Bool?
    /// Whether the email is a private relay address (Apple).
    public var isPrivateEmail: Bool?
    /// The user's name as the provider gives it, if it does.
    public var name: String?
    /// The user's picture as the provider gives it (an `https` URL), if it does.
    public var pictureUrl: String?
    /// A credential to revoke the grant with on account deletion (Apple's refresh token from the
    /// code exchange, Naver's access token), sealed by the token-verifier (AES-GCM under
    /// `PROVIDER_TOKEN_KEY`): the member-service keeps it without being able to read it.
    public var sealedCredential: String?
    /// When the provider signed the user in (seconds since 1970): the ID token's `iat`, nil for Naver (whose
    /// access token says nothing of it: the login's own time then). The session keeps it as every access
    /// token's `auth_time`, so an ID token replayed later is no recent sign-in (RecentSignIn).
    public var signedInAt: Int64?

    /// Creates an identity.
    public init(provider: Provider, subject: String, email: String? = nil, emailVerified: Bool? = nil,
                isPrivateEmail: Bool? = nil, name: String? = nil, pictureUrl: String? = nil, sealedCredential: String? = nil,
                signedInAt: Int64? = nil) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.name = name
        self.pictureUrl = pictureUrl
        self.sealedCredential = sealedCredential
        self.signedInAt = signedInAt
    }
}
