import Foundation

/// The domain events (docs/events.md): published to one JetStream stream, consumed by durable
/// consumers, delivered at least once (consumers are idempotent, keyed by `id`).
public enum Events {
    /// The JetStream stream that keeps every event.
    public static let stream = "AUTH_EVENTS"
    /// The subjects the stream holds.
    public static let subjects = ["events.>"]

    /// `events.member.created`
    public static let memberCreated = EventType<MemberCreated>("member.created")
    /// `events.member.logged-in`
    public static let memberLoggedIn = EventType<MemberLoggedIn>("member.logged-in")
    /// `events.member.updated`
    public static let memberUpdated = EventType<MemberUpdated>("member.updated")
    /// `events.member.deleted`
    public static let memberDeleted = EventType<MemberDeleted>("member.deleted")
    /// `events.identity.linked`
    public static let identityLinked = EventType<IdentityLinked>("identity.linked")
    /// `events.identity.unlinked`
    public static let identityUnlinked = EventType<IdentityUnlinked>("identity.unlinked")
    /// `events.session.ended`
    public static let sessionEnded = EventType<SessionEnded>("session.ended")
    /// `events.refresh-token.reused`
    public static let refreshTokenReused = EventType<RefreshTokenReused>("refresh-token.reused")
    /// `events.apple.notification`
    public static let appleNotification = EventType<AppleNotificationReceived>("apple.notification")

    /// The key-value bucket where the webhook-relay's replicas record which endpoint has which consumer, which replica
    /// reads it, and which endpoint answered 410 (the member-service makes it).
    public static let webhookBucket = "WEBHOOK_RELAY"

    /// How the webhook-relay's consumers are made: every event, each acknowledged within 30 s, from their creation on.
    public enum WebhookSlotSettings {
        public static let filterSubject = "events.>"
        public static let ackWait = Duration.seconds(30)
    }

    /// Every event type's name, as docs/events.md lists them.
    public static var typeNames: [String] {
        [memberCreated.name, memberLoggedIn.name, memberUpdated.name, memberDeleted.name, memberSuspended.name, memberUnsuspended.name,
         identityLinked.name, identityUnlinked.name, sessionEnded.name, refreshTokenReused.name, appleNotification.name]
    }

    /// The durable consumers of the stream, named here because the NATS permissions
    /// (`BusIdentity`) give each one to its service alone.
    public enum Durables {
        /// token-verifier's consumer of `member.deleted` (grant revocation).
        public static let revocations = "token-verifier-revocations"
        /// token-issuer's consumer of `member.deleted` (ends the member's sessions).
        public static let sessionsOfDeletedMembers = "token-issuer-sessions"
        /// token-issuer's consumer of `identity.unlinked` (JetStream filters one subject per consumer).
        public static let sessionsOfUnlinkedIdentities = "token-issuer-sessions-identities"
        /// token-issuer's consumer of `member.suspended` (ends the member's sessions if the member-service's
        /// call did not reach it).
        public static let sessionsOfSuspendedMembers = "token-issuer-suspensions"
        /// token-issuer's consumer of `member.unsuspended`.
        public static let sessionsOfUnsuspendedMembers = "token-issuer-unsuspensions"
        /// admin-api's consumer of every event (`events.>`): the audit trail.
        public static let audit = "admin-api-audit"

        /// webhook-relay's consumers of every event, one per webhook endpoint (claimed in ``Events/webhookBucket``). The
        /// member-service makes them; the relay's NATS identity may only read them: whoever creates a consumer chooses
        /// where it delivers, and nats-server checks no permission on that.
        public static let webhookSlots = (1...32).map { $0 < 10 ? "webhook-0\($0)" : "webhook-\($0)" }
    }
}

/// An event type: its name and payload type. Its NATS subject is `events.<name>`.
public struct EventType<Payload: Codable & Sendable>: Sendable {
    /// The event's name, as docs/events.md spells it.
    public let name: String

    /// Declares an event type.
    public init(_ name: String) {
        self.name = name
    }

    /// The subject the event is published on.
    public var subject: String { "events.\(name)" }
}

/// What every event carries around its payload.
public struct EventEnvelope<Payload: Codable & Sendable>: Codable, Sendable {
    /// The contract version (1).
    public var v: Int = 1
    /// A unique ID: JetStream de-duplicates on it and consumers use it to stay idempotent.
    public var id: String
    /// The event's name (`member.deleted`).
    public var type: String
    /// When it happened.
    public var occurredAt: Date
    /// The payload.
    public var data: Payload

    /// Wraps `data` as a new event of `type`.
    public init(_ type: EventType<Payload>, _ data: Payload, id: String = UUID().uuidString.lowercased(), occurredAt: Date = Date()) {
        self.id = id
        self.type = type.name
        self.occurredAt = occurredAt
        self.data = data
    }
}

/// A member's profile changed: by `PATCH /api/members/me` (`source` `request`), by a login that
/// brought a new name, email, picture, time zone or locale (`login`), or by a linked identity that
/// filled the member's empty email, name or picture (`link`). It names the fields, not their
/// values: a consumer that needs them asks for the profile.
public struct MemberUpdated: Codable, Sendable, Equatable {
    public var memberId: Int64
    /// The fields that changed, by their `GET /api/members/me` names, sorted.
    public var fields: [String]
    /// `request`, `login` or `link`.
    public var source: String
    public init(memberId: Int64, fields: [String], source: String) {
        self.memberId = memberId
        self.fields = fields
        self.source = source
    }
}

/// A member was created by a first login.
public struct MemberCreated: Codable, Sendable, Equatable {
    public var memberId: Int64
    public var provider: Provider
    public init(memberId: Int64, provider: Provider) {
        self.memberId = memberId
        self.provider = provider
    }
}

/// A member signed in: with which provider, on which device, from where (the audit trail's login record).
public struct MemberLoggedIn: Codable, Sendable, Equatable {
    public var memberId: Int64
    public var provider: Provider
    public var isExistingMember: Bool
    /// The app's device ID (nil from a member-service of an older release, as are the fields below).
    public var deviceId: String?
    /// The client's address as the gateway saw it.
    public var clientAddress: String?
    /// The device's platform (`iOS 18.1`).
    public var platform: String?
    /// The app's name and version (`MyApp 2.3.1`).
    public var appVersion: String?
    public init(memberId: Int64, provider: Provider, isExistingMember: Bool, deviceId: String? = nil, clientAddress: String? = nil,
                platform: String? = nil, appVersion: String? = nil) {
        self.memberId = memberId
        self.provider = provider
        self.isExistingMember = isExistingMember
        self.deviceId = deviceId
        self.clientAddress = clientAddress
        self.platform = platform
        self.appVersion = appVersion
    }
}

/// A member and their personal data were deleted. `grants` are the provider grants to revoke
/// (the token-verifier does, retrying until the provider answers).
public struct MemberDeleted: Codable, Sendable, Equatable {
    public var memberId: Int64
    public var grants: [ProviderGrant]
    /// Why: `requested` (the member asked), `admin` (an admin did: ``actor``) or `apple-account-delete` and the like.
    public var reason: String
    /// The admin who deleted the member, and their reason (`reason` `admin`); nil otherwise.
    public var actor: AdminActor?
    public init(memberId: Int64, grants: [ProviderGrant], reason: String, actor: AdminActor? = nil) {
        self.memberId = memberId
        self.grants = grants
        self.reason = reason
        self.actor = actor
    }
}

/// A provider grant to revoke: a credential sealed by the token-verifier (only it can open it).
public struct ProviderGrant: Codable, Sendable, Equatable {
    public var provider: Provider
    public var subject: String
    /// The sealed credential (Apple refresh token, Naver access token), base64url.
    public var sealedCredential: String
    public init(provider: Provider, subject: String, sealedCredential: String) {
        self.provider = provider
        self.subject = subject
        self.sealedCredential = sealedCredential
    }
}

/// An identity was linked to a member.
public struct IdentityLinked: Codable, Sendable, Equatable {
    public var memberId: Int64
    public var provider: Provider
    public init(memberId: Int64, provider: Provider) {
        self.memberId = memberId
        self.provider = provider
    }
}

/// An identity was unlinked from a member (by the member, or by a provider notification);
/// the issuer ends the sessions that signed in with it.
public struct IdentityUnlinked: Codable, Sendable, Equatable {
    public var memberId: Int64
    public var provider: Provider
    /// `requested`, `consent-revoked`, `account-delete`.
    public var reason: String
    public init(memberId: Int64, provider: Provider, reason: String) {
        self.memberId = memberId
        self.provider = provider
        self.reason = reason
    }
}

/// A session ended (logout, replaced, reuse detected, member deleted, identity ended).
public struct SessionEnded: Codable, Sendable, Equatable {
    public var sessionId: String
    public var memberId: Int64
    /// `logout`, `logout-all`, `replaced`, `reuse`, `member-deleted`, `identity-ended`, `revoked`,
    /// `suspended` (an admin suspended the member), `admin` (an admin ended it).
    public var reason: String
    /// When the session's last access token expires: whoever keeps a list of ended sessions
    /// (the gateway) may forget this one then. Nil from publishers that do not know.
    public var tokensExpireAt: Date?
    public init(sessionId: String, memberId: Int64, reason: String, tokensExpireAt: Date? = nil) {
        self.sessionId = sessionId
        self.memberId = memberId
        self.reason = reason
        self.tokensExpireAt = tokensExpireAt
    }
}

/// A rotated refresh token was presented again after the grace window; its session ended.
public struct RefreshTokenReused: Codable, Sendable, Equatable {
    public var sessionId: String
    public var memberId: Int64
    public init(sessionId: String, memberId: Int64) {
        self.sessionId = sessionId
        self.memberId = memberId
    }
}

/// An Apple server-to-server notification, verified.
public struct AppleNotificationReceived: Codable, Sendable, Equatable {
    /// `consent-revoked`, `account-delete`, `email-disabled`, `email-enabled`.
    public var type: String
    public var subject: String
    public var memberId: Int64?
    public init(type: String, subject: String, memberId: Int64?) {
        self.type = type
        self.subject = subject
        self.memberId = memberId
    }
}
