/// A login as the gateway hands it on (`auth.verifier.login`): the provider's token to prove, and what the
/// app said beside it. Nothing here names a member: the member is the one the proven identity leads to.
public struct LoginRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The provider token to prove.
    public var verify: VerifyRequest
    /// The app's device ID: the session to start, or to replace.
    public var deviceId: String
    /// The name the provider gave the app (Apple, first sign-in only).
    public var name: String?
    /// The email the provider gave the app (Apple, first sign-in only).
    public var email: String?
    /// The device's IANA time zone, as the app reports it.
    public var timezone: String?
    /// The device's locale, as the app reports it.
    public var locale: String?
    /// One HTTP login's key (the gateway makes it: a random UUID), the same in every attempt of
    /// it the gateway sends: the issuer derives the session's ID from it, so an attempt that arrives after another
    /// of the same login gets that session back instead of replacing it.
    public var attemptKey: String?
    /// Where the login came from and on what (the client's address, platform and app version): kept with
    /// the session and in the login's event, for the audit trail and the session list.
    public var client: ClientContext?

    /// Creates a request.
    public init(verify: VerifyRequest, deviceId: String, name: String? = nil, email: String? = nil,
                timezone: String? = nil, locale: String? = nil, attemptKey: String? = nil, client: ClientContext? = nil) {
        self.verify = verify
        self.deviceId = deviceId
        self.name = name
        self.email = email
        self.timezone = timezone
        self.locale = locale
        self.attemptKey = attemptKey
        self.client = client
    }
}

/// A link as the gateway hands it on (`auth.verifier.link`): the provider's token to prove, and the
/// Bearer's access token, which the member-service checks.
public struct LinkRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The provider token to prove.
    public var verify: VerifyRequest
    /// The member to link the identity to.
    public var memberId: Int64
    /// The member's own access token (`sub` must be `memberId`).
    public var accessToken: String
    /// The name the provider gave the app (Apple, first sign-in only).
    public var name: String?
    /// The email the provider gave the app (Apple, first sign-in only).
    public var email: String?
    /// The app's device ID, which a server nonce must have been issued for (`REQUIRE_SERVER_NONCE`).
    public var deviceId: String?

    /// Creates a request.
    public init(verify: VerifyRequest, memberId: Int64, accessToken: String, name: String? = nil, email: String? = nil,
                deviceId: String? = nil) {
        self.verify = verify
        self.memberId = memberId
        self.accessToken = accessToken
        self.name = name
        self.email = email
        self.deviceId = deviceId
    }
}
