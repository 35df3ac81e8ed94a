import Authentication
import Contracts
import Foundation
import Logging
import Messaging
import Rules

/// What member-service's endpoints do, one method per endpoint: check the proof the request carries and
/// what the repository cannot, call the repository, log the change. `MemberServer` wires them to NATS.
///
/// Nothing on the bus is trusted, the gateway least: a login's identity arrives only from the
/// token-verifier (the one identity that may publish `auth.member.login`), and every request that acts on a
/// member carries that member's access token, checked here (``MemberProof``); only the admin-api's calls,
/// which only its identity may send, act without it, each for a named admin (`MemberHandlers+Admin.swift`).
struct MemberHandlers: Sendable {
    /// The members and their identities (PostgreSQL's ``MemberStore`` in the service).
    let members: any MemberRepository
    /// The check of the access token a member-scoped request carries.
    let proof: MemberProof
    /// The token-issuer: sessions to start, or to end after a deletion, an unlink or a suspension.
    let issuer: any ServiceCalling
    let issuerTimeout: Duration
    /// The rule for the changes that can take or destroy the account: linking, unlinking, deleting.
    let recentSignIn: RecentSignIn
    let logger: Logger

    /// Finds or creates the member of the identity the verifier proved, then hands the login to the
    /// token-issuer, which starts the device's session and answers the caller.
    func login(_ request: MemberLoginRequest) async throws -> Hop<TokenPair> {
        try Self.validate(request.identity)
        try Field.deviceId(request.deviceId)
        if let key = request.attemptKey { try LoginRequest.checkAttemptKey(key) }
        // Spent by the login's statement, first: whatever the rest of the login comes to, the nonce is spent.
        if let nonce = request.nonce { try Self.checkNonce(nonce) }
        let request = ProviderDetails.cleaned(request)
        // A suspended member's login is refused here (MEMBER_SUSPENDED), with nothing written.
        let member = try await members.login(request)
        return try .forward(to: Endpoints.issueTokens,
                            IssueTokensRequest(memberId: member.memberId, deviceId: request.deviceId, provider: request.identity.provider,
                                               isExistingMember: member.isExistingMember, signedInAt: request.identity.signedInAt,
                                               attemptKey: request.attemptKey, platform: request.client?.platform,
                                               appVersion: request.client?.appVersion))
    }

    /// The member's own profile; `MEMBER_SUSPENDED` while an admin's suspension is in force.
    func profile(_ request: MemberGetRequest) async throws -> MemberProfile {
        try await proof.claims(of: request.accessToken, memberId: request.memberId)
        guard let member = try await members.member(request.memberId) else {
            throw ServiceFailure(.notFound, "No such member.")
        }
        guard member.suspension == nil else { throw ServiceFailure.memberSuspended }
        return member.profile
    }

    /// Checks the fields again (nothing on the bus is trusted), then changes them.
    func update(_ request: MemberUpdateRequest) async throws -> MemberProfile {
        try await proof.claims(of: request.accessToken, memberId: request.memberId)
        try ProfileRules.check(name: request.name, timezone: request.timezone, locale: request.locale)
        try await members.update(request)
        logger.info("member updated", ["member.id": String(request.memberId)])
        return try await profileAfterChange(request.memberId)
    }

    /// Links the identity the verifier proved to the member whose access token came with it.
    func link(_ request: LinkIdentityRequest) async throws -> MemberProfile {
        // Used up first, as a login's.
        if let nonce = request.nonce { try await use(nonce) }
        try await recentProof(request.accessToken, memberId: request.memberId)
        try Self.validate(request.identity)
        // The identity's own sign-in must be as recent: a captured ID token replayed into another account
        // would send its owner's next sign-in there.
        if let signedInAt = request.identity.signedInAt, !recentSignIn.isRecent(signedInAt, now: Int64(Date().timeIntervalSince1970)) {
            throw ServiceFailure(.providerTokenExpired, "The provider token to link was issued more than \(recentSignIn.maxAge) s ago: "
                                 + "get a fresh one from the provider, then retry.", reason: "tooOldToLink")
        }
        let request = ProviderDetails.cleaned(request)
        try await members.link(request)
        logger.info("identity linked", ["member.id": String(request.memberId), "identity.provider": request.identity.provider.rawValue])
        return try await profileAfterChange(request.memberId)
    }

    /// Unlinks the identity, then has the token-issuer end the sessions opened through it; answers those.
    func unlink(_ request: UnlinkIdentityRequest) async throws -> SessionsEnded {
        try await recentProof(request.accessToken, memberId: request.memberId)
        try await members.unlink(request)
        logger.info("identity unlinked", ["member.id": String(request.memberId), "identity.provider": request.provider.rawValue])
        return try await identityEnded(request.memberId, request.provider)
    }

    /// Deletes the member, then has the token-issuer end its sessions and refuse new ones; a repeated
    /// request (the member is gone already) does the second step again and answers the same. A suspended
    /// member is `MEMBER_SUSPENDED`: an admin deletes it (``adminDelete(_:)``).
    func delete(_ request: MemberDeleteRequest) async throws -> MemberDeleteReply {
        try await recentProof(request.accessToken, memberId: request.memberId)
        if try await members.member(request.memberId)?.suspension != nil { throw ServiceFailure.memberSuspended }
        return try await deleteMember(request.memberId, reason: "requested", actor: nil)
    }

    /// The deletion, the member's own or an admin's (`actor`): the member, its personal data and identities
    /// go, with `member.deleted` naming the grants to revoke, then the token-issuer ends its sessions and
    /// refuses new ones (idempotent, so a repeated request repairs a failed call).
    func deleteMember(_ memberId: Int64, reason: String, actor: AdminActor?) async throws -> MemberDeleteReply {
        let deleted = try await members.delete(memberId: memberId, reason: reason, actor: actor)
        if deleted {
            var metadata = ["member.id": String(memberId), "member.deleted.reason": reason]
            if let actor { metadata["admin.name"] = actor.admin }
            logger.info("member deleted", metadata)
        }
        return MemberDeleteReply(memberId: memberId, deleted: deleted, sessionsEnded: try await memberDeleted(memberId))
    }

    /// Acts on an Apple notification the token-verifier proved (only it may send this subject), then has
    /// the token-issuer end the sessions of what it ended.
    func appleNotification(_ notification: AppleNotification) async throws -> AppleNotificationOutcome {
        try Self.validate(notification)
        var outcome = try await members.handle(notification)
        logger.info("apple notification handled",
                    ["apple.event": notification.type, "member.id": outcome.memberId.map(String.init) ?? "none",
                     "identity.ended": String(outcome.identityEnded), "member.deleted": String(outcome.memberDeleted)])
        if let memberId = outcome.memberId {
            if outcome.memberDeleted {
                outcome.sessionsEnded = try await memberDeleted(memberId)
            } else if outcome.identityEnded {
                outcome.sessionsEnded = try await identityEnded(memberId, .apple)
            }
        }
        return outcome
    }

    /// Records a server nonce the verifier checked as used (it checked it is genuine, the device's and unexpired).
    private func use(_ nonce: UsedNonce) async throws {
        try Self.checkNonce(nonce)
        try await members.use(nonce)
    }

    /// A nonce's id as the store keeps it: 1 to 64 bytes.
    private static func checkNonce(_ nonce: UsedNonce) throws(ServiceFailure) {
        guard (1...64).contains(nonce.id.utf8.count) else { throw ServiceFailure.invalidRequest("The nonce's id must be 1 to 64 bytes.") }
    }

    /// The member's profile after a change of its own; the member deleted meanwhile is `UNAUTHORIZED`.
    private func profileAfterChange(_ memberId: Int64) async throws -> MemberProfile {
        guard let member = try await members.member(memberId) else { throw ServiceFailure.memberGone }
        return member.profile
    }

    /// The member's proof for a change that can take or destroy the account: its access token, of a session
    /// that signed in with its provider within the window (``RecentSignIn``); else `REAUTHENTICATION_REQUIRED`.
    private func recentProof(_ token: String, memberId: Int64) async throws(ServiceFailure) {
        let claims = try await proof.claims(of: token, memberId: memberId)
        try recentSignIn.check(claims, now: Int64(Date().timeIntervalSince1970))
    }

    /// Has the token-issuer end a deleted member's sessions and refuse new ones (idempotent).
    private func memberDeleted(_ memberId: Int64) async throws(ServiceFailure) -> SessionsEnded {
        try await issuer.call(Endpoints.endDeletedMember, DeletedMemberRequest(memberId: memberId), timeout: issuerTimeout, retries: 1)
    }

    /// Has the token-issuer end the sessions opened through the member's identity of `provider` (idempotent).
    private func identityEnded(_ memberId: Int64, _ provider: Provider) async throws(ServiceFailure) -> SessionsEnded {
        try await issuer.call(Endpoints.endIdentitySessions, EndIdentitySessionsRequest(memberId: memberId, provider: provider),
                              timeout: issuerTimeout, retries: 1)
    }

    static func validate(_ identity: VerifiedIdentity) throws(ServiceFailure) {
        guard !identity.subject.isEmpty, identity.subject.utf8.count <= FieldLimits.subject else {
            throw .invalidRequest("The identity's subject must be 1 to \(FieldLimits.subject) bytes.")
        }
        guard !identity.subject.unicodeScalars.contains(where: \.isControlCharacter) else {
            throw .invalidRequest("The identity's subject must not contain control characters.")
        }
    }

    static func validate(_ notification: AppleNotification) throws(ServiceFailure) {
        guard !notification.subject.isEmpty, notification.subject.utf8.count <= FieldLimits.subject else {
            throw .invalidRequest("The notification's subject must be 1 to \(FieldLimits.subject) bytes.")
        }
        guard !notification.type.isEmpty, notification.type.utf8.count <= 64 else {
            throw .invalidRequest("The notification's type must be 1 to 64 bytes.")
        }
        guard (1...255).contains(notification.jti.utf8.count) else {
            throw .invalidRequest("The notification's jti must be 1 to 255 bytes.")
        }
    }
}
