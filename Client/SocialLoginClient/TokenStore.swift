/// Where the client keeps the signed-in user's tokens and the device identifier.
///
/// The device identifier outlives sign-outs: `clearTokens()` leaves it in place, so the device
/// keeps one session slot on the server across logins.
public protocol TokenStore: Sendable {
    /// The stored tokens, or nil when no user is signed in.
    func loadTokens() async throws -> StoredTokens?
    /// Replaces the stored tokens.
    func saveTokens(_ tokens: StoredTokens) async throws
    /// Forgets the tokens (sign-out).
    func clearTokens() async throws
    /// The stored device identifier, or nil before the first one is made.
    func loadDeviceIdentifier() async throws -> String?
    /// Stores the device identifier.
    func saveDeviceIdentifier(_ identifier: String) async throws
}
