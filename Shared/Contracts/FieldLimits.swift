/// The most UTF-8 bytes each field of the contracts may hold: one home for the gateway, which refuses a
/// longer value before any service is asked, and for the services, which refuse it again (they trust no
/// caller, the gateway included: SPEC section 9).
public enum FieldLimits {
    /// An ID token, an access token, an authorization code, an Apple notification's payload.
    public static let token = 16_384
    /// The app's device identifier, kept with each session.
    public static let deviceId = 255
    /// A nonce sent with an ID token (the raw one, or the server's).
    public static let nonce = 512
    /// A refresh token.
    public static let refreshToken = 512
    /// A login's time zone and locale. Wider than the profile's own limits: a value that is no IANA name
    /// or language tag (Apple's `en_US@calendar=japanese;numbers=arab`) is normalised or ignored by the
    /// member-service, never a reason to refuse the login.
    public static let timezone = 128
    /// See ``timezone``.
    public static let locale = 128
    /// A given or family name sent with Apple's first sign-in.
    public static let name = 200
    /// An email address sent with Apple's first sign-in.
    public static let email = 320
    /// A provider's subject: an ID token's `sub`, Naver's profile `id`.
    public static let subject = 255
    /// A provider's name in a body or path (`google`, `apple`, `kakao`, `naver`).
    public static let providerName = 16
    /// A login's platform (`iOS 18.1`), sent or read from its `User-Agent`: longer is cut, never refused.
    public static let platform = 64
    /// A login's app name and version (`MyApp 2.3.1`), sent or read from its `User-Agent`: longer is cut.
    public static let appVersion = 64
    /// A client's address as the gateway writes it (IPv6 at most 45 characters).
    public static let clientAddress = 64
    /// An admin's name in `ADMIN_TOKENS_FILE`.
    public static let adminName = 64
    /// The reason an admin gives for a change.
    public static let adminReason = 500
}
