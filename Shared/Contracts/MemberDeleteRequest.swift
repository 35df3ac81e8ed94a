/// Deletes a member (`auth.member.delete`); the member-service then has the token-issuer end its sessions
/// and refuse new ones, and answers with the sessions that ended.
public struct MemberDeleteRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member.
    public var memberId: Int64
    /// The member's own access token: the proof the member-service checks (`sub` must be `memberId`).
    public var accessToken: String

    /// Creates a request.
    public init(memberId: Int64, accessToken: String) {
        self.memberId = memberId
        self.accessToken = accessToken
    }
}

/// The outcome of a deletion.
public struct MemberDeleteReply: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member.
    public var memberId: Int64
    /// False when the member was already gone (a repeated request).
    public var deleted: Bool
    /// The sessions the token-issuer ended for the deletion (the gateway refuses their tokens at once).
    public var sessionsEnded: SessionsEnded?

    /// Creates a reply.
    public init(memberId: Int64, deleted: Bool, sessionsEnded: SessionsEnded? = nil) {
        self.memberId = memberId
        self.deleted = deleted
        self.sessionsEnded = sessionsEnded
    }
}
