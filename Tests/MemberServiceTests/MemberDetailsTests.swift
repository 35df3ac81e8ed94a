import Testing
@testable import MemberService

/// Linking an identity fills the member's missing email and name and changes nothing else.
@Suite("Member details at link: gaps filled, nothing switched")
struct MemberDetailsTests {
    @Test("an empty member takes the identity's email and name")
    func emptyTakesBoth() {
        let member = MemberDetails(email: nil, name: nil)
        #expect(member.fillingGaps(from: MemberDetails(email: "a@example.com", name: "A")) == MemberDetails(email: "a@example.com", name: "A"))
    }

    @Test("a member's own email stays; only the missing name is filled")
    func ownEmailStays() {
        let member = MemberDetails(email: "own@example.com", name: nil)
        #expect(member.fillingGaps(from: MemberDetails(email: "new@example.com", name: "New"))
            == MemberDetails(email: "own@example.com", name: "New"))
    }

    @Test("nothing to fill is nil, so nothing is written", arguments: [
        (MemberDetails(email: "own@example.com", name: "Own"), MemberDetails(email: "new@example.com", name: "New")),
        (MemberDetails(email: nil, name: nil), MemberDetails(email: nil, name: nil)),
        (MemberDetails(email: nil, name: "Own"), MemberDetails(email: nil, name: "New")),
    ])
    func nothingToFill(member: MemberDetails, identity: MemberDetails) {
        #expect(member.fillingGaps(from: identity) == nil)
    }

    @Test("a picture fills an empty one only, and the changed fields are named as GET names them")
    func pictureAndChangedFields() {
        let member = MemberDetails(email: "own@example.com", name: nil, picture: nil)
        let filled = member.fillingGaps(from: MemberDetails(email: "new@example.com", name: "New", picture: "https://p.example/x.jpg"))
        #expect(filled == MemberDetails(email: "own@example.com", name: "New", picture: "https://p.example/x.jpg"))
        #expect(filled.map(member.changedFields) == ["name", "pictureUrl"])
        #expect(MemberDetails(email: nil, name: nil, picture: "https://p.example/own.jpg")
            .fillingGaps(from: MemberDetails(email: nil, name: nil, picture: "https://p.example/new.jpg")) == nil)
    }
}
