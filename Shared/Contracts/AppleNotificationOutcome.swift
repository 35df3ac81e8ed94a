/// What the member-service did with an Apple notification.
public struct AppleNotificationOutcome: Codable, Sendable, Equatable {
    /// The contract version (1).
    public var v: Int = 1
    /// Always true once the notification is handled (also when there was nothing to do).
    public var handled: Bool
    /// The member the notification concerned, if the Apple identity is known and was linked before the event.
    public var memberId: Int64?
    /// True when the notification ended the member's Apple identity (`consent-revoked`, `account-delete`).
    public var identityEnded: Bool
    /// True when the member was deleted because Apple ended its last identity.
    public var memberDeleted: Bool
    /// The sessions the token-issuer ended for what the notification ended (the member, or its Apple identity).
    public var sessionsEnded: SessionsEnded?

    /// Creates an outcome. A notification handled before (the same `jti`) answers the first outcome again.
    public init(handled: Bool = true, memberId: Int64?, identityEnded: Bool = false, memberDeleted: Bool,
                sessionsEnded: SessionsEnded? = nil) {
        self.handled = handled
        self.memberId = memberId
        self.identityEnded = identityEnded
        self.memberDeleted = memberDeleted
        self.sessionsEnded = sessionsEnded
    }
}
