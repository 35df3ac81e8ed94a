/// What a sealed credential holds: the provider token that revokes a grant, and the client it
/// was issued to (Apple needs the same `client_id` to revoke). Only the token-verifier reads it.
struct ProviderCredential: Codable, Sendable, Equatable {
    /// The format version (1).
    var v: Int = 1
    /// The client ID the token was issued to.
    var clientId: String
    /// Apple's refresh token or Naver's access token.
    var token: String
}
