/// Deletes a member (`auth.member.delete`).
public struct MemberDeleteRequest: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// The member.
    public var memberId: Int64

    /// Creates a request.
    public init(memberId: Int64) {
        self.memberId = memberId
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

    /// Creates a reply.
    public init(memberId: Int64, deleted: Bool) {
        self.memberId = memberId
        self.deleted = deleted
    }
}
