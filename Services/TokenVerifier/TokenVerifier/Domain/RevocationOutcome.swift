/// How revoking one provider grant went.
enum RevocationOutcome: Sendable, Equatable {
    /// Revoked now, or the provider says it was already invalid: nothing left to do.
    case done
    /// The provider could not be reached or refused for a reason that may pass: try again later.
    case retry
}
