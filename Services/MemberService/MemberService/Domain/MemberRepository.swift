import Contracts

/// Where members and their linked identities are kept, as the member-service's use cases need them:
/// PostgreSQL (`MemberStore`) in the service, memory in unit tests. Every change writes its events in the
/// same transaction; the rules that must act on locked rows (a first login's find-or-create, the email and
/// name precedence, a link's owner check) are the store's, the others are this folder's.
protocol MemberRepository: Sendable {
    /// Finds the member of the identity, or creates one; exactly one concurrent caller creates. `login`
    /// comes cleaned (``ProviderDetails/cleaned(_:)-(MemberLoginRequest)``).
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
    /// Deletes the member with its identities and writes `member.deleted`; false when it was gone already.
    func delete(memberId: Int64, reason: String) async throws -> Bool
    /// Acts on a verified Apple notification (``AppleNotificationAction``), each `jti` once: a replay answers the first outcome.
    func handle(_ notification: AppleNotification) async throws -> AppleNotificationOutcome
    /// Records a server nonce as used; `INVALID_PROVIDER_TOKEN` (`nonceUsed`) when it was used before.
    func use(_ nonce: UsedNonce) async throws
}
