import Foundation

/// The admin-api's calls (issue 32): the only requests that act on a member without that member's proof
/// (SPEC section 9). Each is sent by the admin-api's NATS identity alone and carries the ``AdminActor``:
/// the admin its tokens file named, and the reason they gave.
extension Endpoints {
    /// member-service: the members of an identity (provider and subject) or of an email.
    public static let adminFindMembers = Endpoint<AdminFindMembersRequest, AdminMemberList>("auth.member.admin-find")
    /// member-service: everything it holds about a member: profile, status, identities.
    public static let adminGetMember = Endpoint<AdminMemberRequest, AdminMemberDetail>("auth.member.admin-get")
    /// member-service: suspend a member: the token-issuer ends its sessions and starts none until the
    /// suspension is lifted; logins and links answer `MEMBER_SUSPENDED`; publishes `member.suspended`.
    public static let adminSuspendMember = Endpoint<AdminMemberRequest, AdminSuspensionReply>("auth.member.admin-suspend")
    /// member-service: lift a suspension; publishes `member.unsuspended`.
    public static let adminUnsuspendMember = Endpoint<AdminMemberRequest, AdminSuspensionReply>("auth.member.admin-unsuspend")
    /// member-service: the same deletion as `DELETE /api/members/me` (grants revoked, sessions ended).
    public static let adminDeleteMember = Endpoint<AdminMemberRequest, MemberDeleteReply>("auth.member.admin-delete")
    /// token-issuer: a member's sessions, live and ended (kept as long as the issuer keeps them), newest first.
    public static let adminListSessions = Endpoint<AdminMemberRequest, AdminSessionList>("auth.issuer.admin-sessions")
    /// token-issuer: end one session by ID, whoever's it is; `NOT_FOUND` when there is none.
    public static let adminEndSession = Endpoint<AdminEndSessionRequest, AdminSessionEnded>("auth.issuer.admin-end-session")
    /// token-issuer: the member-service suspended a member or lifted its suspension. Suspended: end every
    /// session now (as logout-all does) and start or refresh none; lifted: new logins start sessions again (the
    /// ones the suspension ended stay ended). Applied only
    /// when `generation` is newer than the one the issuer holds, so a late or repeated call never undoes a
    /// newer change. Only the member-service calls it.
    public static let memberSuspension = Endpoint<MemberSuspensionRequest, SessionsEnded>("auth.issuer.member-suspension")
}

/// Who acts, and why: carried by every admin call, recorded in the events the change publishes.
public struct AdminActor: Codable, Sendable, Equatable {
    /// The admin's name, from `ADMIN_TOKENS_FILE`.
    public var admin: String
    /// What the admin gave as the reason (required for changes; nil for reads).
    public var reason: String?

    /// Creates an actor.
    public init(admin: String, reason: String? = nil) {
        self.admin = admin
        self.reason = reason
    }
}

/// Finds members (`auth.member.admin-find`): by identity (`provider` and `subject`) or by `email` (any
/// member or identity email, compared case-insensitively). One of the two, not both.
public struct AdminFindMembersRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// Who asks.
    public var actor: AdminActor
    /// The identity's provider.
    public var provider: Provider?
    /// The identity's subject (`sub`, Naver's `id`).
    public var subject: String?
    /// An email.
    public var email: String?
    /// The most members to answer (1 to 100).
    public var limit: Int

    /// Creates a request.
    public init(actor: AdminActor, provider: Provider? = nil, subject: String? = nil, email: String? = nil, limit: Int = 50) {
        self.actor = actor
        self.provider = provider
        self.subject = subject
        self.email = email
        self.limit = limit
    }
}

/// The members a search found, lowest ID first.
public struct AdminMemberList: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The members.
    public var members: [AdminMemberSummary]

    /// Creates a list.
    public init(members: [AdminMemberSummary]) {
        self.members = members
    }
}

/// One member in a search's answer.
public struct AdminMemberSummary: Codable, Sendable, Equatable {
    /// The member's ID.
    public var memberId: Int64
    /// The member's email, if known.
    public var email: String?
    /// The member's name, if known.
    public var name: String?
    /// `active` or `suspended`.
    public var status: MemberStatus
    /// The providers of its identities.
    public var providers: [Provider]
    /// When the member was created.
    public var createdAt: Date

    /// Creates a summary.
    public init(memberId: Int64, email: String?, name: String?, status: MemberStatus, providers: [Provider], createdAt: Date) {
        self.memberId = memberId
        self.email = email
        self.name = name
        self.status = status
        self.providers = providers
        self.createdAt = createdAt
    }
}

/// A member's standing.
public enum MemberStatus: String, Codable, Sendable, Equatable {
    /// Signs in as usual.
    case active
    /// An admin suspended it: no session works, none starts.
    case suspended
}

/// Names one member for an admin call (`auth.member.admin-get`, `-suspend`, `-unsuspend`, `-delete`,
/// `auth.issuer.admin-sessions`).
public struct AdminMemberRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// Who asks, and why (a change needs a reason).
    public var actor: AdminActor
    /// The member.
    public var memberId: Int64

    /// Creates a request.
    public init(actor: AdminActor, memberId: Int64) {
        self.actor = actor
        self.memberId = memberId
    }
}

/// Everything the member-service holds about a member, for the detail view and the export.
public struct AdminMemberDetail: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The profile, as the member sees it.
    public var profile: MemberProfile
    /// `active` or `suspended`.
    public var status: MemberStatus
    /// The suspension in force, if any.
    public var suspension: Suspension?
    /// The identities, with what is stored of each.
    public var identities: [AdminIdentity]
    /// When the member last changed.
    public var updatedAt: Date?

    /// Creates a detail.
    public init(profile: MemberProfile, status: MemberStatus, suspension: Suspension? = nil, identities: [AdminIdentity],
                updatedAt: Date? = nil) {
        self.profile = profile
        self.status = status
        self.suspension = suspension
        self.identities = identities
        self.updatedAt = updatedAt
    }
}

/// A suspension in force.
public struct Suspension: Codable, Sendable, Equatable {
    /// When it began.
    public var since: Date
    /// The admin who suspended the member.
    public var admin: String
    /// The reason they gave.
    public var reason: String

    /// Creates one.
    public init(since: Date, admin: String, reason: String) {
        self.since = since
        self.admin = admin
        self.reason = reason
    }
}

/// One identity as the member-service stores it.
public struct AdminIdentity: Codable, Sendable, Equatable {
    /// The provider.
    public var provider: Provider
    /// The provider's subject.
    public var subject: String
    /// The identity's email.
    public var email: String?
    /// True only when the provider vouched for it.
    public var emailVerified: Bool
    /// Whether the email is a private relay address (Apple).
    public var isPrivateEmail: Bool?
    /// The identity's name.
    public var name: String?
    /// The identity's picture.
    public var pictureUrl: String?
    /// When it was linked.
    public var linkedAt: Date
    /// When the member last signed in with it.
    public var lastLoginAt: Date?
    /// Whether a provider grant (Apple refresh token, Naver access token) is held for revocation. The
    /// grant itself, sealed, is never shown.
    public var holdsGrant: Bool

    /// Creates one.
    public init(provider: Provider, subject: String, email: String?, emailVerified: Bool, isPrivateEmail: Bool?, name: String?,
                pictureUrl: String?, linkedAt: Date, lastLoginAt: Date?, holdsGrant: Bool) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.name = name
        self.pictureUrl = pictureUrl
        self.linkedAt = linkedAt
        self.lastLoginAt = lastLoginAt
        self.holdsGrant = holdsGrant
    }
}

/// The outcome of a suspension or its lifting.
public struct AdminSuspensionReply: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member.
    public var memberId: Int64
    /// The member's status now.
    public var status: MemberStatus
    /// False when the member already had that status (a repeated request changes nothing).
    public var changed: Bool
    /// The sessions the suspension ended (the admin-api hands them on to nobody: the issuer's
    /// `session.ended` events reach the gateways).
    public var sessionsEnded: SessionsEnded?

    /// Creates a reply.
    public init(memberId: Int64, status: MemberStatus, changed: Bool, sessionsEnded: SessionsEnded? = nil) {
        self.memberId = memberId
        self.status = status
        self.changed = changed
        self.sessionsEnded = sessionsEnded
    }
}

/// Tells the token-issuer of a suspension or its lifting (`auth.issuer.member-suspension`).
public struct MemberSuspensionRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member.
    public var memberId: Int64
    /// True: suspended; false: lifted.
    public var suspended: Bool
    /// The member's suspension generation: each suspension or lifting adds one. The issuer applies a
    /// change only when it is newer than the one it holds.
    public var generation: Int64

    /// Creates a request.
    public init(memberId: Int64, suspended: Bool, generation: Int64) {
        self.memberId = memberId
        self.suspended = suspended
        self.generation = generation
    }
}

/// A member's sessions as an admin sees them.
public struct AdminSessionList: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The sessions, newest first.
    public var sessions: [AdminSession]

    /// Creates a list.
    public init(sessions: [AdminSession]) {
        self.sessions = sessions
    }
}

/// One session, live or ended.
public struct AdminSession: Codable, Sendable, Equatable {
    /// The session ID (`sid` of its access tokens).
    public var sessionId: String
    /// The app's device ID.
    public var deviceId: String
    /// The provider the session signed in with.
    public var provider: Provider
    /// The device's platform (`iOS 18.1`), from the login's `platform` or its `User-Agent`.
    public var platform: String?
    /// The app's version (`MyApp 2.3.1`), from the login's `appVersion` or its `User-Agent`.
    public var appVersion: String?
    /// When the session started (the login).
    public var createdAt: Date
    /// When its refresh token was last used.
    public var lastUsedAt: Date
    /// When it ended; nil while live.
    public var endedAt: Date?
    /// Why it ended: `logout`, `logout-all`, `replaced`, `reuse`, `member-deleted`, `identity-ended`,
    /// `suspended`, `admin`.
    public var endReason: String?

    /// Creates one.
    public init(sessionId: String, deviceId: String, provider: Provider, platform: String?, appVersion: String?, createdAt: Date,
                lastUsedAt: Date, endedAt: Date?, endReason: String?) {
        self.sessionId = sessionId
        self.deviceId = deviceId
        self.provider = provider
        self.platform = platform
        self.appVersion = appVersion
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.endedAt = endedAt
        self.endReason = endReason
    }
}

/// Ends one session by ID (`auth.issuer.admin-end-session`).
public struct AdminEndSessionRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// Who asks, and why.
    public var actor: AdminActor
    /// The session.
    public var sessionId: String

    /// Creates a request.
    public init(actor: AdminActor, sessionId: String) {
        self.actor = actor
        self.sessionId = sessionId
    }
}

/// The outcome of ending a session by ID.
public struct AdminSessionEnded: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The session's member.
    public var memberId: Int64
    /// The session, if this call ended it (empty when it had ended already).
    public var sessionsEnded: SessionsEnded

    /// Creates a reply.
    public init(memberId: Int64, sessionsEnded: SessionsEnded) {
        self.memberId = memberId
        self.sessionsEnded = sessionsEnded
    }
}

/// What a login's HTTP request said of the client beside its tokens: kept with the session and in the
/// login's event (the audit trail's "from where"). The gateway fills it; each field cleaned and bounded
/// (``FieldLimits/platform``, ``FieldLimits/appVersion``, ``FieldLimits/clientAddress``).
public struct ClientContext: Codable, Sendable, Equatable {
    /// The client's address, as the gateway determined it (`TRUSTED_PROXIES`).
    public var address: String?
    /// The device's platform (`iOS 18.1`): the login's `platform` field, else read from its `User-Agent`.
    public var platform: String?
    /// The app's name and version (`MyApp 2.3.1`): the login's `appVersion` field, else from its `User-Agent`.
    public var appVersion: String?

    /// Creates a context.
    public init(address: String? = nil, platform: String? = nil, appVersion: String? = nil) {
        self.address = address
        self.platform = platform
        self.appVersion = appVersion
    }
}

extension Events {
    /// `events.member.suspended`
    public static let memberSuspended = EventType<MemberSuspended>("member.suspended")
    /// `events.member.unsuspended`
    public static let memberUnsuspended = EventType<MemberUnsuspended>("member.unsuspended")
}

/// An admin suspended a member: its sessions ended, and none starts until the suspension is lifted.
public struct MemberSuspended: Codable, Sendable, Equatable {
    public var memberId: Int64
    /// The admin who suspended it.
    public var admin: String
    /// The reason they gave.
    public var reason: String
    /// The member's suspension generation (``MemberSuspensionRequest/generation``).
    public var generation: Int64
    public init(memberId: Int64, admin: String, reason: String, generation: Int64) {
        self.memberId = memberId
        self.admin = admin
        self.reason = reason
        self.generation = generation
    }
}

/// An admin lifted a member's suspension.
public struct MemberUnsuspended: Codable, Sendable, Equatable {
    public var memberId: Int64
    /// The admin who lifted it.
    public var admin: String
    /// The reason they gave.
    public var reason: String
    /// The member's suspension generation (``MemberSuspensionRequest/generation``).
    public var generation: Int64
    public init(memberId: Int64, admin: String, reason: String, generation: Int64) {
        self.memberId = memberId
        self.admin = admin
        self.reason = reason
        self.generation = generation
    }
}
