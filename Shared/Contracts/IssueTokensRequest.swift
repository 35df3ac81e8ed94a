import JSON

/// Starts (or replaces) a member's session on a device and issues its tokens (`auth.issuer.issue`).
public struct IssueTokensRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member.
    public var memberId: Int64
    /// The app's device ID; one session per (member, device).
    public var deviceId: String
    /// The provider the member signed in with; ending that identity ends the session.
    public var provider: Provider
    /// Whether the member existed before this login (the member-service found it): handed back in the tokens.
    public var isExistingMember: Bool?
    /// When the provider signed the user in (`VerifiedIdentity.signedInAt`): the session's `auth_time`, never
    /// later than the issuer's now; nil means now.
    public var signedInAt: Int64?
    /// The login's key (`LoginRequest.attemptKey`): the session's ID is derived from it.
    public var attemptKey: String?
    /// The login's platform and app version (``ClientContext``), kept with the session for the session lists.
    public var platform: String?
    /// See ``platform``.
    public var appVersion: String?

    /// Creates a request.
    public init(memberId: Int64, deviceId: String, provider: Provider, isExistingMember: Bool? = nil, signedInAt: Int64? = nil,
                attemptKey: String? = nil, platform: String? = nil, appVersion: String? = nil) {
        self.memberId = memberId
        self.deviceId = deviceId
        self.provider = provider
        self.isExistingMember = isExistingMember
        self.signedInAt = signedInAt
        self.attemptKey = attemptKey
        self.platform = platform
        self.appVersion = appVersion
    }
}

/// Rotates a refresh token (`auth.issuer.refresh`).
public struct RefreshTokensRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The refresh token the app holds.
    public var refreshToken: String
    /// The app's device ID, if sent; must match the session's when given.
    public var deviceId: String?

    /// Creates a request.
    public init(refreshToken: String, deviceId: String? = nil) {
        self.refreshToken = refreshToken
        self.deviceId = deviceId
    }
}

/// An access token and its refresh token.
public struct TokenPair: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The service access token (JWT).
    public var accessToken: String
    /// The opaque refresh token.
    public var refreshToken: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    /// The member the tokens are for.
    public var memberId: Int64
    /// The session the tokens belong to.
    public var sessionId: String
    /// The access token's claims and its header's `kid`, so the gateway need not parse back the token it
    /// was just handed (absent from an issuer of an older release: the gateway then parses it).
    public var claims: AccessTokenClaims?
    /// The `kid` of the access token's header.
    public var keyId: String?
    /// At a login, whether the member existed before it; nil for a refresh.
    public var isExistingMember: Bool?

    /// Creates a pair.
    public init(accessToken: String, refreshToken: String, expiresIn: Int, memberId: Int64, sessionId: String,
                claims: AccessTokenClaims? = nil, keyId: String? = nil, isExistingMember: Bool? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.memberId = memberId
        self.sessionId = sessionId
        self.claims = claims
        self.keyId = keyId
        self.isExistingMember = isExistingMember
    }
}

/// Asks for the public keys of service access tokens (`auth.issuer.jwks`).
public struct AccessTokenKeysRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1

    /// Creates a request.
    public init() {}
}

/// The public keys of service access tokens, as the JWKS endpoint serves them.
public struct AccessTokenKeys: Codable, Sendable {
    /// The contract version (1).
    public var v: Int = 1
    /// The key set (an RFC 7517 JWK Set, which JOSE's `JWKSet` reads): active and retired keys whose
    /// tokens may still be live. JSON here, so that the contracts stay plain data without JOSE.
    public var jwks: JSONValue
    /// The issuer (`iss`) of the tokens.
    public var issuer: String
    /// The audience (`aud`) of the tokens.
    public var audience: String

    /// Creates the key set answer.
    public init(jwks: JSONValue, issuer: String, audience: String) {
        self.jwks = jwks
        self.issuer = issuer
        self.audience = audience
    }
}
