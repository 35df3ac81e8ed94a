/// `PATCH /api/members/me` body: the fields to change, each optional.
public struct MemberUpdateBody: Codable, Sendable {
    /// The member's name.
    public var name: String?
    /// An IANA time zone name (`Asia/Seoul`).
    public var timezone: String?
    /// A BCP 47 language tag (`ko-KR`).
    public var locale: String?

    /// Creates a body.
    public init(name: String? = nil, timezone: String? = nil, locale: String? = nil) {
        self.name = name
        self.timezone = timezone
        self.locale = locale
    }
}

/// `POST /api/members/me/identities` body: the provider and that provider's login fields.
public struct LinkIdentityBody: Codable, Sendable {
    /// `google`, `apple`, `naver` or `kakao`, in any letter case.
    public var provider: String
    /// The ID token (Google, Kakao).
    public var idToken: String?
    /// The identity token (Apple).
    public var identityToken: String?
    /// The access token (Naver).
    public var accessToken: String?
    /// The raw nonce given to the provider's SDK (Google, Kakao).
    public var nonce: String?
    /// The raw nonce whose SHA-256 the app gave Apple.
    public var rawNonce: String?
    /// Apple's one-time authorization code.
    public var authorizationCode: String?
    /// The name Apple gave the app.
    public var fullName: PersonName?
    /// The email Apple gave the app.
    public var email: String?
    /// The device ID a server nonce was issued for (needed with one: `REQUIRE_SERVER_NONCE`).
    public var deviceId: String?

    /// Creates a body.
    public init(provider: String, idToken: String? = nil, identityToken: String? = nil, accessToken: String? = nil,
                nonce: String? = nil, rawNonce: String? = nil, authorizationCode: String? = nil,
                fullName: PersonName? = nil, email: String? = nil, deviceId: String? = nil) {
        self.deviceId = deviceId
        self.provider = provider
        self.idToken = idToken
        self.identityToken = identityToken
        self.accessToken = accessToken
        self.nonce = nonce
        self.rawNonce = rawNonce
        self.authorizationCode = authorizationCode
        self.fullName = fullName
        self.email = email
    }
}

/// `POST /api/auth/apple/notifications` body, as Apple sends it.
public struct AppleNotificationBody: Codable, Sendable {
    /// The compact JWS.
    public var payload: String

    /// Creates a body.
    public init(payload: String) {
        self.payload = payload
    }
}

/// The answer to `POST /api/auth/apple/notifications`.
public struct AppleNotificationResponse: Codable, Sendable, Equatable {
    /// True once the notification is handled.
    public var handled: Bool

    /// Creates an answer.
    public init(handled: Bool) {
        self.handled = handled
    }
}
