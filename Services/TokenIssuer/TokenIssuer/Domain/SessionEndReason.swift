/// Why a session ended, as `session.ended` events and `issuer.sessions.end_reason` spell it.
enum SessionEndReason: String, Sendable {
    /// The member logged out on this device.
    case logout
    /// The member logged out everywhere.
    case logoutAll = "logout-all"
    /// A new login on the same device (ended in SQL, by `issuer.open_session`).
    case replaced
    /// A rotated refresh token was used again (ended in SQL, by the refresh functions: `issuer.refresh_second_look`, and
    /// for tokens of the releases before generations `issuer.rotate_legacy_refresh_token`).
    case reuse
    /// The member was deleted.
    case memberDeleted = "member-deleted"
    /// The identity the session signed in with was unlinked or ended by its provider.
    case identityEnded = "identity-ended"
    /// The member ended it from the session list.
    case revoked
    /// An admin suspended the member (ended in SQL, by `issuer.apply_member_suspension`).
    case suspended
    /// An admin ended it.
    case admin
}
