import Contracts
import Rules

/// What an admin looks members up by (`auth.member.admin-find`): one identity, or an email compared
/// case-insensitively with every member's and identity's.
enum MemberSearch: Sendable, Equatable {
    /// The member of the identity (provider and subject): at most one.
    case identity(Provider, subject: String)
    /// The members whose own email, or one of whose identities' emails, is this one in any letter case.
    case email(String)

    /// The most members a search may ask for.
    static let maxLimit = 100

    /// The search `request` asks for, checked (the member-service trusts no caller): exactly one of an
    /// identity (provider and subject) and an email, each within its limit and without control
    /// characters, and a limit of 1 to ``maxLimit``; else `INVALID_REQUEST`.
    init(_ request: AdminFindMembersRequest) throws(ServiceFailure) {
        guard (1...Self.maxLimit).contains(request.limit) else {
            throw .invalidRequest("limit must be 1 to \(Self.maxLimit).")
        }
        switch (request.provider, request.subject, request.email) {
        case (let provider?, let subject?, nil):
            try Field.required(subject, "subject", maxBytes: FieldLimits.subject)
            self = .identity(provider, subject: subject)
        case (nil, nil, let email?):
            try Field.required(email, "email", maxBytes: FieldLimits.email)
            self = .email(email)
        case (nil, nil, nil):
            throw .invalidRequest("Give an identity (provider and subject) or an email.")
        case (_?, nil, _), (nil, _?, _):
            throw .invalidRequest("An identity needs both provider and subject.")
        default:
            throw .invalidRequest("Give an identity (provider and subject) or an email, not both.")
        }
    }
}
