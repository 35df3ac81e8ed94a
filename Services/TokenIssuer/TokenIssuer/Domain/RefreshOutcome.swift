import Contracts

/// What a refresh came to, as `issuer.rotate_refresh_token` (SQL/functions.sql) found it in the one
/// statement that also acted on it: rotated the token, or ended the session on a reuse.
enum RefreshOutcome: String, Sendable, CaseIterable {
    /// The token's first use: its successor was stored and the session extended.
    case rotated
    /// A duplicate inside the grace window that derived the same successor (an app retrying).
    case replayed
    /// A rotated token used again after the window: the session was ended.
    case reused
    /// No such token.
    case unknown
    /// The token or its session expired.
    case expired
    /// The token's session had ended.
    case ended
    /// The token's session ended because an admin suspended the member, who still is.
    case suspended
    /// The caller named another device than the session's.
    case wrongDevice = "wrong-device"

    /// Rule (refresh reply): a first use and a duplicate inside the grace window both get the
    /// successor (nil here); a reuse is told apart, so the app knows the session was ended because
    /// someone else may hold its token; anything else is an invalid token, without saying which,
    /// since the caller may not be the token's owner. A session a suspension ended says so while the
    /// suspension holds: the token proves the caller held that session, and the app can tell its user why.
    var failure: ServiceFailure? {
        switch self {
        case .rotated, .replayed:
            nil
        case .reused:
            ServiceFailure(.refreshTokenReused, "The refresh token was already used; sign in again.")
        case .suspended:
            ServiceFailure.memberSuspended
        case .unknown, .expired, .ended, .wrongDevice:
            ServiceFailure(.invalidRefreshToken, "The refresh token is not valid or has expired; sign in again.")
        }
    }

    /// Whether this refresh ended the session, so its events wait in the outbox.
    var endedSession: Bool { self == .reused }
}
