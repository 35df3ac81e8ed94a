import Contracts

/// Where members and their linked identities are kept, as the member-service's use cases need them:
/// PostgreSQL (`MemberStore`) in the service, memory in unit tests. Every change writes its events in the
/// same transaction; the rules that must act on locked rows (a first login's find-or-create, the email and
/// name precedence, a link's owner check, a suspended member's refusals) are the store's, the others are
/// this folder's.
///
/// A suspended member (``MemberRecord/suspension``) is refused `MEMBER_SUSPENDED`
/// (``ServiceFailure/memberSuspended``) by `login`, `update`, `link` and `unlink`, before anything is
/// written; `delete`, `handle` and the admin's calls act on it as on any member.
protocol MemberRepository: Sendable {
    /// Finds the member of the identity, or creates one; exactly one concurrent caller creates. `login`
    /// comes cleaned (``ProviderDetails/cleaned(_:)-(MemberLoginRequest)``). Its server nonce, if any, is
    /// recorded as used first, and stays used whatever the login comes to: `INVALID_PROVIDER_TOKEN`
    /// (`nonceUsed`) when it was used before.
    func login(_ login: MemberLoginRequest) async throws -> MemberLoginReply
    /// The member with its identities, or nil when there is no such member.
    func member(_ memberId: Int64) async throws -> MemberRecord?
    /// Applies ``ProfileUpdate`` to the member's locked row; `UNAUTHORIZED` (``ServiceFailure/memberGone``) when it is gone.
    func update(_ request: MemberUpdateRequest) async throws
    /// Links a verified, cleaned identity to the member: idempotent when it is the member's already,
    /// `IDENTITY_IN_USE` when it is another member's or the member has another of that provider.
    func link(_ request: LinkIdentityRequest) async throws
    /// Unlinks the member's identity of `request.provider`: `NOT_FOUND` when none, `LAST_IDENTITY` when it is the only one.
    func unlink(_ request: UnlinkIdentityRequest) async throws
    /// Deletes the member with its identities and writes `member.deleted` (with `actor`, the admin who
    /// deleted it, if one did); false when it was gone already.
    func delete(memberId: Int64, reason: String, actor: AdminActor?) async throws -> Bool
    /// Acts on a verified Apple notification (``AppleNotificationAction``), each `jti` once: a replay answers the first outcome.
    func handle(_ notification: AppleNotification) async throws -> AppleNotificationOutcome
    /// Records a server nonce as used; `INVALID_PROVIDER_TOKEN` (`nonceUsed`) when it was used before.
    func use(_ nonce: UsedNonce) async throws

    /// The members `search` finds, lowest ID first, at most `limit` (checked by the caller).
    func find(_ search: MemberSearch, limit: Int) async throws -> [AdminMemberSummary]
    /// The member with its suspension and what is stored of each identity, or nil when there is no such member.
    func dossier(_ memberId: Int64) async throws -> MemberDossier?
    /// Suspends the member (`suspended` true) or lifts its suspension, for `admin` with `reason`: in one
    /// transaction, sets or clears the suspension, adds one to its generation and writes `member.suspended`
    /// or `member.unsuspended`. A member that has that status already changes nothing (no event) and answers
    /// its generation as it is. Nil when there is no such member.
    func setSuspension(memberId: Int64, suspended: Bool, admin: String, reason: String) async throws -> SuspensionChange?
}

extension MemberRepository {
    /// Deletes the member (not for an admin): see ``delete(memberId:reason:actor:)``.
    func delete(memberId: Int64, reason: String) async throws -> Bool {
        try await delete(memberId: memberId, reason: reason, actor: nil)
    }
}
