/// `GET /stats`: what the dev identity provider was asked, for tests that count.
public struct DevIDPStats: Codable, Sendable, Equatable {
    /// Successful Apple refresh-token revocations.
    public var appleRevocations: Int
    /// Successful Naver token deletions.
    public var naverDeletions: Int
    /// Key-set fetches by provider.
    public var jwksFetches: [String: Int]
    /// Successful Apple authorization-code exchanges.
    public var appleTokenExchanges: Int
    /// Distinct Apple client secrets seen (a verifier that caches its secret presents one per client ID).
    public var appleClientSecrets: Int
    /// Fetches of the never-published key sets (a verifier following `jku` would make some).
    public var unpublishedJWKSFetches: Int
}
