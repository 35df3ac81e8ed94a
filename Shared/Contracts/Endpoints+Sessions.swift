import Foundation

extension Endpoints {
    /// token-issuer: end one session of a member (logout), idempotent.
    public static let logout = Endpoint<LogoutRequest, SessionsEnded>("auth.issuer.logout")
    /// token-issuer: end every session of a member (logout-all).
    public static let logoutAll = Endpoint<LogoutAllRequest, SessionsEnded>("auth.issuer.logout-all")
    /// token-issuer: a member's live sessions.
    public static let listSessions = Endpoint<ListSessionsRequest, SessionList>("auth.issuer.sessions")
    /// token-issuer: end one of a member's sessions by ID; `NOT_FOUND` when it is not theirs or not live.
    public static let endSession = Endpoint<EndSessionRequest, SessionsEnded>("auth.issuer.end-session")
    /// token-issuer: the member-service deleted a member: end its sessions and start none for it
    /// from now on (idempotent). Only the member-service calls it, before it answers the deletion.
    public static let endDeletedMember = Endpoint<DeletedMemberRequest, SessionsEnded>("auth.issuer.member-deleted")
    /// token-issuer: a member's identity of one provider was unlinked or ended by the provider: end
    /// the sessions opened through it (idempotent). Only the member-service calls it.
    public static let endIdentitySessions = Endpoint<EndIdentitySessionsRequest, SessionsEnded>("auth.issuer.identity-ended")
}

/// A member the member-service deleted (`auth.issuer.member-deleted`).
public struct DeletedMemberRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The deleted member.
    public var memberId: Int64

    /// Creates a request.
    public init(memberId: Int64) {
        self.memberId = memberId
    }
}

/// A member's identity that is gone (`auth.issuer.identity-ended`).
public struct EndIdentitySessionsRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member.
    public var memberId: Int64
    /// The provider of the identity; its sessions are those that signed in with it.
    public var provider: Provider

    /// Creates a request.
    public init(memberId: Int64, provider: Provider) {
        self.memberId = memberId
        self.provider = provider
    }
}

/// Ends the session an access token belongs to (`auth.issuer.logout`).
public struct LogoutRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member (`sub` of the access token).
    public var memberId: Int64
    /// The session (`sid` of the access token).
    public var sessionId: String
    /// The member's own access token: the proof the token-issuer checks (`sub` must be `memberId`, `sid` `sessionId`).
    public var accessToken: String

    /// Creates a request.
    public init(memberId: Int64, sessionId: String, accessToken: String) {
        self.memberId = memberId
        self.sessionId = sessionId
        self.accessToken = accessToken
    }
}

/// Ends every session of a member (`auth.issuer.logout-all`).
public struct LogoutAllRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member.
    public var memberId: Int64
    /// The member's own access token: the proof the token-issuer checks (`sub` must be `memberId`).
    public var accessToken: String

    /// Creates a request.
    public init(memberId: Int64, accessToken: String) {
        self.memberId = memberId
        self.accessToken = accessToken
    }
}

/// Ends one session of a member, chosen by ID (`auth.issuer.end-session`).
public struct EndSessionRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member who asks; the session must be theirs.
    public var memberId: Int64
    /// The session to end.
    public var sessionId: String
    /// The member's own access token: the proof the token-issuer checks (`sub` must be `memberId`).
    public var accessToken: String

    /// Creates a request.
    public init(memberId: Int64, sessionId: String, accessToken: String) {
        self.memberId = memberId
        self.sessionId = sessionId
        self.accessToken = accessToken
    }
}

/// The sessions a command ended (none when they had ended already).
public struct SessionsEnded: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The IDs of the sessions this command ended.
    public var sessionIds: [String]
    /// When the last access token of those sessions expires (now plus the access-token lifetime): a
    /// gateway keeps them on its ended-session list until then, no longer.
    public var tokensExpireAt: Date?

    /// Creates a reply.
    public init(sessionIds: [String], tokensExpireAt: Date? = nil) {
        self.sessionIds = sessionIds
        self.tokensExpireAt = tokensExpireAt
    }
}

/// Asks for a member's live sessions (`auth.issuer.sessions`).
public struct ListSessionsRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member.
    public var memberId: Int64
    /// The member's own access token: the proof the token-issuer checks (`sub` must be `memberId`).
    public var accessToken: String

    /// Creates a request.
    public init(memberId: Int64, accessToken: String) {
        self.memberId = memberId
        self.accessToken = accessToken
    }
}

/// A member's live sessions, most recently used first.
public struct SessionList: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The sessions.
    public var sessions: [SessionSummary]

    /// Creates a list.
    public init(sessions: [SessionSummary]) {
        self.sessions = sessions
    }
}

/// One live session: a device the member is signed in on.
public struct SessionSummary: Codable, Sendable, Equatable {
    /// The session ID (`sid` of its access tokens).
    public var sessionId: String
    /// The app's device ID.
    public var deviceId: String
    /// When the session started (the login).
    public var createdAt: Date
    /// When its refresh token was last used.
    public var lastUsedAt: Date
    /// The device's platform (`iOS 18.1`), from the login's `platform` or its `User-Agent`.
    public var platform: String?
    /// The app's name and version (`MyApp 2.3.1`), from the login's `appVersion` or its `User-Agent`.
    public var appVersion: String?

    /// Creates a summary.
    public init(sessionId: String, deviceId: String, createdAt: Date, lastUsedAt: Date, platform: String? = nil,
                appVersion: String? = nil) {
        self.sessionId = sessionId
        self.deviceId = deviceId
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.platform = platform
        self.appVersion = appVersion
    }
}

extension Endpoints {
    /// token-issuer: the sessions that ended while their access tokens may still be live (ended within the
    /// access-token lifetime), page by page in the order they ended. A gateway reads them at start and after
    /// every gap in its live `session.ended` subscription, so it refuses the tokens of sessions that ended
    /// while it was not listening. Session IDs only: no member, no token.
    public static let endedSessions = Endpoint<EndedSessionsRequest, EndedSessionsPage>("auth.issuer.ended-sessions")
}

/// Asks for a page of ended sessions (`auth.issuer.ended-sessions`).
public struct EndedSessionsRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The previous page's ``EndedSessionsPage/next``; nil for the first page.
    public var after: String?
    /// The most sessions to answer (1 to 1,000).
    public var limit: Int

    /// Creates a request.
    public init(after: String? = nil, limit: Int = 1_000) {
        self.after = after
        self.limit = limit
    }
}

/// A page of ended sessions.
public struct EndedSessionsPage: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The sessions, in the order they ended.
    public var sessions: [EndedSession]
    /// Where the next page starts; nil when this one is the last.
    public var next: String?

    /// Creates a page.
    public init(sessions: [EndedSession], next: String?) {
        self.sessions = sessions
        self.next = next
    }
}

/// One ended session whose access tokens may still be live.
public struct EndedSession: Codable, Sendable, Equatable {
    /// The session ID (`sid` of its access tokens).
    public var sessionId: String
    /// When the last access token of the session expires.
    public var tokensExpireAt: Date
    /// When the session ended, by the issuer's clock: every token of the session was issued before it
    /// (nil from an issuer of an older release).
    public var endedAt: Date?

    /// Creates one.
    public init(sessionId: String, tokensExpireAt: Date, endedAt: Date? = nil) {
        self.sessionId = sessionId
        self.tokensExpireAt = tokensExpireAt
        self.endedAt = endedAt
    }
}
