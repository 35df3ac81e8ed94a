/// A member's own email, name and picture: the profile's, which may differ from any one identity's.
struct MemberDetails: Sendable, Equatable {
    var email: String?
    var name: String?
    var picture: String? = nil

    /// Rule (member details at link): the details of an identity being linked fill the member's gaps
    /// only; what the member has stays, so linking never switches a member to the new identity's
    /// email, name or picture. (At login they follow the identity they came from instead: see
    /// `member.follow_login` in SQL/functions.sql.) Nil when nothing changes, so nothing need be written.
    func fillingGaps(from identity: MemberDetails) -> MemberDetails? {
        let filled = MemberDetails(email: email ?? identity.email, name: name ?? identity.name, picture: picture ?? identity.picture)
        return filled == self ? nil : filled
    }

    /// The fields, by their `GET /api/members/me` names, in which `other` differs from these (sorted).
    func changedFields(to other: MemberDetails) -> [String] {
        [("email", email != other.email), ("name", name != other.name), ("pictureUrl", picture != other.picture)]
            .filter(\.1).map(\.0)
    }
}
