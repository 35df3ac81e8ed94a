/// Why no user is signed in. An open set, like the API's error codes.
public struct SignOutReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// A stable name for the reason.
    public let rawValue: String

    /// Wraps a reason.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Nobody has signed in on this store yet (or the tokens were cleared outside the client).
    public static let noSession = SignOutReason(rawValue: "no-session")
    /// The app called `logout()` or `logoutAll()`.
    public static let loggedOut = SignOutReason(rawValue: "logged-out")
    /// The app called `deleteAccount()`.
    public static let accountDeleted = SignOutReason(rawValue: "account-deleted")
    /// The server refused the refresh token (`INVALID_REFRESH_TOKEN`: expired, logged out elsewhere,
    /// replaced by a newer login on this device): the user must sign in again.
    public static let sessionExpired = SignOutReason(rawValue: "session-expired")
    /// The server saw a rotated refresh token used again (`REFRESH_TOKEN_REUSED`) and ended the
    /// session, since the token may have been stolen: the user must sign in again.
    public static let refreshTokenReused = SignOutReason(rawValue: "refresh-token-reused")
    /// An operator suspended the member (`MEMBER_SUSPENDED`): every session ended, and sign-ins are refused
    /// until the suspension is lifted. Tell the user to contact support.
    public static let memberSuspended = SignOutReason(rawValue: "member-suspended")

    /// Sign in with Apple reported the user's Apple credential revoked or gone (the user stopped using
    /// Apple ID with the app in Settings, or signed out of the device's Apple ID).
    public static let appleCredentialRevoked = SignOutReason(rawValue: "apple-credential-revoked")
    /// Another process sharing the token store (an app extension, say) signed out.
    public static let signedOutElsewhere = SignOutReason(rawValue: "signed-out-elsewhere")

    public var description: String { rawValue }
}
