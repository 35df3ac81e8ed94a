/// Whether a user is signed in, as `AuthClient.authStates()` reports it.
public enum AuthState: Sendable, Equatable {
    /// Tokens for `memberId` are stored.
    case signedIn(memberId: Int64)
    /// No tokens are stored, for `reason`.
    case signedOut(SignOutReason)
}
