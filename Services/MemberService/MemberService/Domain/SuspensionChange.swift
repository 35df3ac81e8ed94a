/// What a suspension or its lifting did to a member (``MemberRepository/setSuspension(memberId:suspended:admin:reason:)``).
struct SuspensionChange: Sendable, Equatable {
    /// False when the member had that status already: nothing was written.
    var changed: Bool
    /// The member's suspension generation now, which the token-issuer is told (unchanged when `changed` is false).
    var generation: Int64
}
