import Contracts
import Foundation

/// Everything the member-service holds of a member, for an admin (`auth.member.admin-get`): the record, which
/// the member sees through its profile, and what is stored of each identity.
struct MemberDossier: Sendable, Equatable {
    /// The member, with its suspension.
    var record: MemberRecord
    /// Its identities as stored, oldest link first.
    var identities: [AdminIdentity]
    /// When the member's row last changed.
    var updatedAt: Date

    /// The admin's view: the profile as the member sees it (``MemberRecord/profile``), the status and
    /// suspension, the identities.
    var detail: AdminMemberDetail {
        AdminMemberDetail(profile: record.profile, status: record.status, suspension: record.suspension, identities: identities,
                          updatedAt: updatedAt)
    }
}
