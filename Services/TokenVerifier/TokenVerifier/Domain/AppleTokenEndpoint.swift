/// Apple's token and revoke endpoints, as the verifier's use cases need them: the HTTP client
/// (`AppleTokenClient`) in the service, a stand-in in unit tests.
protocol AppleTokenEndpoint: Sendable {
    /// Exchanges an authorization code issued to `clientID` for Apple's refresh token.
    func exchange(code: String, clientID: String) async -> AppleCodeExchange
    /// Revokes a refresh token issued to `clientID`.
    func revoke(refreshToken: String, clientID: String) async -> RevocationOutcome
}

/// What an exchange of an Apple authorization code gave.
enum AppleCodeExchange: Sendable, Equatable {
    /// Apple's refresh token, and the `sub` of the ID token that came with it (if readable).
    case granted(refreshToken: String, subject: String?)
    /// No refresh token: the code was refused, or Apple could not be reached (logged).
    case notGranted
}
