import Foundation

/// Finds the member of a verified identity or creates one (`auth.member.login`).
public struct MemberLoginRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The identity the verifier proved.
    public var identity: VerifiedIdentity
    /// The app's device ID: the member-service hands it on to the token-issuer, which starts that device's session.
    public var deviceId: String
    /// A name the app sent (Apple's first login); stored only where none is stored yet.
    public var name: String?
    /// An email the app sent (Apple's first login); used only where the token has none.
    public var email: String?
    /// The app's time zone, if sent.
    public var timezone: String?
    /// The app's locale, if sent.
    public var locale: String?
    /// The server nonce the verifier checked (`REQUIRE_SERVER_NONCE`), recorded as used first.
    public var nonce: UsedNonce?
    /// The login's key (`LoginRequest.attemptKey`), handed on to the issuer.
    public var attemptKey: String?
    /// The login's client (``LoginRequest/client``), handed on to the issuer and into the login's event.
    public var client: ClientContext?

    /// Creates a request.
    public init(identity: VerifiedIdentity, deviceId: String, name: String? = nil, email: String? = nil,
                timezone: String? = nil, locale: String? = nil, nonce: UsedNonce? = nil, attemptKey: String? = nil,
                client: ClientContext? = nil) {
        self.identity = identity
        self.deviceId = deviceId
        self.name = name
        self.email = email
        self.timezone = timezone
        self.locale = locale
        self.nonce = nonce
        self.attemptKey = attemptKey
        self.client = client
    }
}

/// The member an identity belongs to.
public struct MemberLoginReply: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member's ID.
    public var memberId: Int64
    /// False when this call created the member.
    public var isExistingMember: Bool

    /// Creates a reply.
    public init(memberId: Int64, isExistingMember: Bool) {
        self.memberId = memberId
        self.isExistingMember = isExistingMember
    }
}

/// Asks for a member's profile (`auth.member.get`).
public struct MemberGetRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member's ID.
    public var memberId: Int64
    /// The member's own access token: the proof the service that owns the data checks (`sub` must be `memberId`).
    public var accessToken: String

    /// Creates a request.
    public init(memberId: Int64, accessToken: String) {
        self.memberId = memberId
        self.accessToken = accessToken
    }
}

/// A member as `GET /api/members/me` shows it.
public struct MemberProfile: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member's ID.
    public var memberId: Int64
    /// The member's email, if known.
    public var email: String?
    /// True only when a linked identity's provider vouched for `email`; an email the app sent is never verified.
    public var emailVerified: Bool
    /// The member's name, if known.
    public var name: String?
    /// The picture of the identity the member last signed in with that has one (an `https` URL).
    public var pictureUrl: String?
    /// The member's IANA time zone, if known.
    public var timezone: String?
    /// The member's BCP 47 locale, if known.
    public var locale: String?
    /// The linked provider identities.
    public var identities: [LinkedIdentity]
    /// When the member was created.
    public var createdAt: Date

    /// Creates a profile.
    public init(memberId: Int64, email: String?, emailVerified: Bool, name: String?, pictureUrl: String? = nil,
                timezone: String? = nil, locale: String? = nil, identities: [LinkedIdentity], createdAt: Date) {
        self.memberId = memberId
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.pictureUrl = pictureUrl
        self.timezone = timezone
        self.locale = locale
        self.identities = identities
        self.createdAt = createdAt
    }
}

/// One provider identity linked to a member.
public struct LinkedIdentity: Codable, Sendable, Equatable {
    /// The provider.
    public var provider: Provider
    /// The identity's email: the provider's, or the one the app sent (Apple's first login).
    public var email: String?
    /// True only when the provider vouched for `email`.
    public var emailVerified: Bool
    /// When it was linked.
    public var linkedAt: Date

    /// Creates an entry.
    public init(provider: Provider, email: String?, emailVerified: Bool, linkedAt: Date) {
        self.provider = provider
        self.email = email
        self.emailVerified = emailVerified
        self.linkedAt = linkedAt
    }
}

/// Changes a member's own profile fields (`auth.member.update`); a field left nil stays as it is.
public struct MemberUpdateRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member's ID.
    public var memberId: Int64
    /// The member's own access token: the proof the service that owns the data checks (`sub` must be `memberId`).
    public var accessToken: String
    /// The new name.
    public var name: String?
    /// The new IANA time zone.
    public var timezone: String?
    /// The new BCP 47 locale.
    public var locale: String?

    /// Creates a request.
    public init(memberId: Int64, accessToken: String, name: String? = nil, timezone: String? = nil, locale: String? = nil) {
        self.memberId = memberId
        self.accessToken = accessToken
        self.name = name
        self.timezone = timezone
        self.locale = locale
    }
}
