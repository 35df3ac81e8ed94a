/// Naver's token-delete endpoint, as the revocation of a deleted member's grant needs it: the HTTP client
/// (`NaverVerifier`) in the service, a stand-in in unit tests.
protocol NaverTokenEndpoint: Sendable {
    /// Deletes a Naver access token, ending the grant; a token Naver no longer knows counts as done.
    func deleteToken(_ accessToken: String) async -> RevocationOutcome
}
