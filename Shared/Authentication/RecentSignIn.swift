import Contracts

/// The recent sign-in rule (RFC 9470, step-up authentication): a change that can take or destroy an account
/// (linking, unlinking, deleting it) is made only with an access token whose session signed in with its
/// provider within `window`. A stolen access token reads for its lifetime; it changes nothing that lasts.
///
/// The service that owns the change checks it (SPEC section 9); the gateway checks it too, before it asks a
/// provider anything.
public struct RecentSignIn: Sendable {
    /// How long after a provider sign-in such changes are allowed (`REAUTHENTICATION_WINDOW`).
    public let window: Duration

    /// A rule that allows the changes for `window` after a sign-in.
    public init(window: Duration) {
        self.window = window
    }

    /// How far a session's sign-in may be after a token's issue: the login's issuer replica signed the one,
    /// a refresh's replica, whose clock may be behind, the other.
    public static let issuerClockAllowance: Int64 = 60

    /// Whether a sign-in at `signedInAt` is within the window at `now` (both seconds since 1970).
    public func isRecent(_ signedInAt: Int64, now: Int64) -> Bool {
        now - signedInAt <= maxAge
    }

    /// The window in whole seconds: the `max_age` the answer names.
    public var maxAge: Int64 { window.components.seconds }

    /// Nothing when `claims` record a sign-in no older than the window at `now` (seconds since 1970); else
    /// `REAUTHENTICATION_REQUIRED`. A token without `auth_time` (of a release before it) is never recent, nor
    /// one whose sign-in is more than ``issuerClockAllowance`` after its issue (`iat`): the issuer never signs that.
    public func check(_ claims: AccessTokenClaims, now: Int64) throws(ServiceFailure) {
        // A sign-in a little ahead of this clock (the issuer's runs ahead) is recent: the issuer signed it.
        guard let authTime = claims.authTime, authTime - claims.iat <= Self.issuerClockAllowance, isRecent(authTime, now: now) else {
            throw ServiceFailure(.reauthenticationRequired,
                                 "This change needs a sign-in within the last \(maxAge) s: sign in with the provider again, then retry.")
        }
    }
}
