/// The outcome of a login: who signed in and whether the account was just created. The
/// tokens themselves are in the client's token store.
public struct LoginResult: Sendable, Equatable {
    /// The member's ID.
    public let memberId: Int64
    /// True only on the login that created the member (show onboarding).
    public let isNewMember: Bool

    /// Creates a result.
    public init(memberId: Int64, isNewMember: Bool) {
        self.memberId = memberId
        self.isNewMember = isNewMember
    }
}
