/// A member's own email and name: the profile's, which may differ from any one identity's.
struct MemberDetails: Sendable, Equatable {
    var email: String?
    var name: String?

    /// Rule (member email and name at link): the details of an identity being linked fill the
    /// member's gaps only; what the member has stays, so linking never switches a member to the new
    /// identity's email or name. (At login they follow the identity they came from instead: see
    /// `member.login` in SQL/functions.sql.) Nil when nothing changes, so nothing need be written.
    func fillingGaps(from identity: MemberDetails) -> MemberDetails? {
        let filled = MemberDetails(email: email ?? identity.email, name: name ?? identity.name)
        return filled == self ? nil : filled
    }
}
