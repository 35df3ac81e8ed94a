/// What happened to the signed-in state, as `AuthClient.authEvents()` reports it: unlike
/// `authStates()`, every refresh is an event too, and nothing is replayed to a new observer.
public enum AuthEvent: Sendable, Equatable {
    /// A login stored tokens for `memberId`.
    case signedIn(memberId: Int64)
    /// The tokens were rotated (by this client, or adopted from another process sharing the store).
    case tokensRefreshed(memberId: Int64)
    /// The tokens are gone, for `reason`.
    case signedOut(SignOutReason)
}
