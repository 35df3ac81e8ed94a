import Contracts
import Logging
import Messaging
import Rules

/// The admin-api's calls (issue 32): the only ones that act on a member without that member's proof. Only
/// the admin-api's NATS identity may send them; each names its admin, and each change a reason, checked
/// here again (``AdminActor/check(requiringReason:)``): the member-service trusts no caller. The events the
/// changes write carry the admin and the reason, for the audit trail.
extension MemberHandlers {
    /// The members of an identity or an email (``MemberSearch``), lowest ID first.
    func adminFind(_ request: AdminFindMembersRequest) async throws -> AdminMemberList {
        try request.actor.check(requiringReason: false)
        let search = try MemberSearch(request)
        let found = try await members.find(search, limit: request.limit)
        logger.info("admin searched members", ["admin.name": request.actor.admin,
                                                "members.found": found.map { String($0.memberId) }.joined(separator: ",")])
        return AdminMemberList(members: found)
    }

    /// Everything held of a member (``MemberDossier/detail``); `NOT_FOUND` for a member that never was or was deleted.
    func adminMember(_ request: AdminMemberRequest) async throws -> AdminMemberDetail {
        try request.actor.check(requiringReason: false)
        guard let dossier = try await members.dossier(request.memberId) else { throw ServiceFailure.noSuchMember }
        // Every admin read is told here too, not only in the admin-api's own trail: whoever holds its seed reads no
        // member unseen.
        logger.info("admin read a member", ["admin.name": request.actor.admin, "member.id": String(request.memberId)])
        return dossier.detail
    }

    /// Suspends the member: see ``changeSuspension(_:suspended:)``.
    func adminSuspend(_ request: AdminMemberRequest) async throws -> AdminSuspensionReply {
        try await changeSuspension(request, suspended: true)
    }

    /// Lifts the member's suspension: see ``changeSuspension(_:suspended:)``.
    func adminUnsuspend(_ request: AdminMemberRequest) async throws -> AdminSuspensionReply {
        try await changeSuspension(request, suspended: false)
    }

    /// Deletes the member as its own deletion does (``deleteMember(_:reason:actor:)``), with `member.deleted`'s
    /// reason `admin` and the admin with their reason as its actor. `NOT_FOUND` for a member that never was or
    /// is gone already, and the issuer is not called then: it would refuse sessions to a member ID not yet
    /// given (its backstop, the `member.deleted` event, repairs a call that failed after the deletion).
    func adminDelete(_ request: AdminMemberRequest) async throws -> MemberDeleteReply {
        try request.actor.check(requiringReason: true)
        guard try await members.member(request.memberId) != nil else { throw ServiceFailure.noSuchMember }
        let reply = try await deleteMember(request.memberId, reason: "admin", actor: request.actor)
        guard reply.deleted else { throw ServiceFailure.noSuchMember }
        return reply
    }

    /// Sets the member's suspension (one transaction: the status, its generation, `member.suspended` or
    /// `member.unsuspended`), then tells the token-issuer the generation, which ends the member's sessions or
    /// lets them start again; answers with the sessions it ended. A member that has that status already
    /// changes nothing (`changed` false) but the issuer is told again, so a call that failed before is
    /// repaired. `NOT_FOUND` for a member that never was or was deleted; the issuer's failure is answered
    /// as it is (the admin retries; the issuer also reads the events).
    private func changeSuspension(_ request: AdminMemberRequest, suspended: Bool) async throws -> AdminSuspensionReply {
        try request.actor.check(requiringReason: true)
        let reason = request.actor.reason ?? ""
        guard let change = try await members.setSuspension(memberId: request.memberId, suspended: suspended,
                                                           admin: request.actor.admin, reason: reason) else {
            throw ServiceFailure.noSuchMember
        }
        if change.changed {
            logger.info(suspended ? "member suspended" : "member unsuspended",
                        ["member.id": String(request.memberId), "admin.name": request.actor.admin,
                         "member.suspension.generation": String(change.generation)])
        }
        let ended = try await issuer.call(Endpoints.memberSuspension,
                                          MemberSuspensionRequest(memberId: request.memberId, suspended: suspended,
                                                                  generation: change.generation),
                                          timeout: issuerTimeout, retries: 1)
        return AdminSuspensionReply(memberId: request.memberId, status: suspended ? .suspended : .active, changed: change.changed,
                                    sessionsEnded: ended)
    }
}
