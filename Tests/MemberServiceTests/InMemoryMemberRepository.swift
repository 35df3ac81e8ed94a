import Contracts
import Foundation
@testable import MemberService

/// Members and identities in memory, for the use cases' tests that need no PostgreSQL. It keeps the
/// repository's contract (``MemberRepositoryContractTests`` runs the same checks against it and against
/// `MemberStore`) and the rules of `Adapters/SQL/functions.sql` as they are written there: an identity's
/// email, flag and name (`member.identity_email`, `identity_email_verified`, `identity_name`), a login's
/// details followed by the member where they were the identity's (`member.follow_login`), a link filling the
/// member's gaps (``MemberDetails``), an Apple notification from before the link changing nothing, a
/// suspended member's refusals and its suspension's generation. Simpler than the store: no locks, no clock
/// of its own, a deletion keeps no grants. Its events are the types written, in order, with the member each
/// names.
actor InMemoryMemberRepository: MemberRepository {
    private struct Identity {
        var memberId: Int64
        var email: String?
        var emailVerified: Bool
        var name: String?
        var picture: String?
        var linkedAt: Date
        var isPrivateEmail: Bool? = nil
        var lastLoginAt: Date? = nil
        var holdsGrant = false
        /// `login_attempt`: the latest login's key and device, and whether that login created the identity.
        var loginAttempt: (key: String, device: String, created: Bool)? = nil
    }

    /// `member.identity_email`: the token's, else the stored one, else the app's.
    private static func email(token: String?, stored: String?, app: String?) -> String? { token ?? stored ?? app }

    /// `member.identity_email_verified`: the token's flag for the token's email, the stored flag for the stored one.
    private static func verified(token: String?, flag: Bool?, stored: String?, storedFlag: Bool?) -> Bool {
        token != nil ? flag ?? false : stored != nil ? storedFlag ?? false : false
    }

    private struct Key: Hashable {
        let provider: Provider
        let subject: String
    }

    private var members: [Int64: MemberRecord] = [:]
    private var identities: [Key: Identity] = [:]
    private var usedNonces: Set<String> = []
    private var notifications: [String: AppleNotificationOutcome] = [:]
    private var nextId: Int64 = 1
    /// Each member's suspension generation (none yet: 0).
    private var generations: [Int64: Int64] = [:]
    /// When each member last changed.
    private var updatedAt: [Int64: Date] = [:]
    /// The logins the repository was handed, oldest first, as they came (cleaned by the use case).
    private(set) var logins: [MemberLoginRequest] = []
    /// The event types written, oldest first, with the member each names.
    private(set) var events: [(type: String, memberId: Int64?)] = []

    /// The event types written for `memberId`, oldest first.
    func events(of memberId: Int64) -> [String] {
        events.filter { $0.memberId == memberId }.map(\.type)
    }

    func login(_ login: MemberLoginRequest) async throws -> MemberLoginReply {
        if let nonce = login.nonce { try await use(nonce) }
        let key = Key(provider: login.identity.provider, subject: login.identity.subject)
        let token = login.identity
        if let old = identities[key], let member = members[old.memberId] {
            // member.login: a suspended member's login writes nothing.
            guard member.suspension == nil else { throw ServiceFailure.memberSuspended }
            // A second attempt of one login gets the first's answer.
            if let attempt = old.loginAttempt, attempt.key == login.attemptKey, attempt.device == login.deviceId,
               let last = old.lastLoginAt, Date().timeIntervalSince(last) < 120 {
                // Apple's grant, which the first attempt may have lacked, is kept, and the key is spent; nothing else is written.
                if token.sealedCredential != nil { identities[key]?.holdsGrant = true }
                identities[key]?.loginAttempt = nil
                return MemberLoginReply(memberId: old.memberId, isExistingMember: !attempt.created)
            }
            logins.append(login)
            var identity = old
            identity.email = Self.email(token: token.email, stored: old.email, app: login.email)
            identity.emailVerified = Self.verified(token: token.email, flag: token.emailVerified, stored: old.email, storedFlag: old.emailVerified)
            identity.name = token.name ?? login.name ?? old.name
            identity.picture = token.pictureUrl ?? old.picture
            identity.isPrivateEmail = token.isPrivateEmail ?? old.isPrivateEmail
            identity.holdsGrant = old.holdsGrant || token.sealedCredential != nil
            identity.lastLoginAt = Date()
            identity.loginAttempt = login.attemptKey.map { ($0, login.deviceId, false) }
            identities[key] = identity
            // member.follow_login: the member's email and name follow the identity's where they were its.
            var followed = member
            if member.email == nil || member.email == old.email { followed.email = identity.email }
            if member.name == nil || member.name == old.name { followed.name = identity.name }
            followed.pictureUrl = token.pictureUrl ?? member.pictureUrl
            followed.timezone = login.timezone ?? member.timezone
            followed.locale = login.locale ?? member.locale
            if followed != member {
                members[old.memberId] = followed
                events.append((Events.memberUpdated.name, old.memberId))
            }
            events.append((Events.memberLoggedIn.name, old.memberId))
            return MemberLoginReply(memberId: old.memberId, isExistingMember: true)
        }
        logins.append(login)
        let memberId = nextId
        nextId += 1
        let identity = Identity(memberId: memberId, email: Self.email(token: token.email, stored: nil, app: login.email),
                                emailVerified: Self.verified(token: token.email, flag: token.emailVerified, stored: nil, storedFlag: nil),
                                name: token.name ?? login.name, picture: token.pictureUrl, linkedAt: Date(),
                                isPrivateEmail: token.isPrivateEmail, lastLoginAt: Date(), holdsGrant: token.sealedCredential != nil,
                                loginAttempt: login.attemptKey.map { ($0, login.deviceId, true) })
        identities[key] = identity
        members[memberId] = MemberRecord(memberId: memberId, email: identity.email, name: identity.name, pictureUrl: identity.picture,
                                         timezone: login.timezone, locale: login.locale, identities: [], createdAt: Date())
        events.append((Events.memberCreated.name, memberId))
        events.append((Events.memberLoggedIn.name, memberId))
        return MemberLoginReply(memberId: memberId, isExistingMember: false)
    }

    func member(_ memberId: Int64) async throws -> MemberRecord? {
        members[memberId].map(refreshed)
    }

    func update(_ request: MemberUpdateRequest) async throws {
        guard var member = members[request.memberId] else { throw ServiceFailure.memberGone }
        guard member.suspension == nil else { throw ServiceFailure.memberSuspended }
        let (new, changed) = ProfileUpdate(name: member.name, timezone: member.timezone, locale: member.locale).applying(request)
        guard !changed.isEmpty else { return }
        (member.name, member.timezone, member.locale) = (new.name, new.timezone, new.locale)
        members[request.memberId] = member
        events.append((Events.memberUpdated.name, request.memberId))
    }

    func link(_ request: LinkIdentityRequest) async throws {
        guard let member = members[request.memberId] else { throw ServiceFailure.memberGone }
        guard member.suspension == nil else { throw ServiceFailure.memberSuspended }
        let key = Key(provider: request.identity.provider, subject: request.identity.subject)
        if let owner = identities[key] {
            guard owner.memberId == request.memberId else { throw ServiceFailure.identityInUse }
            // Linked already: what the provider asserts now is kept, by a login's rules.
            var identity = owner
            identity.email = Self.email(token: request.identity.email, stored: owner.email, app: request.email)
            identity.emailVerified = Self.verified(token: request.identity.email, flag: request.identity.emailVerified,
                                                   stored: owner.email, storedFlag: owner.emailVerified)
            identity.name = request.identity.name ?? request.name ?? owner.name
            identity.picture = request.identity.pictureUrl ?? owner.picture
            identity.isPrivateEmail = request.identity.isPrivateEmail ?? owner.isPrivateEmail
            identity.holdsGrant = owner.holdsGrant || request.identity.sealedCredential != nil
            identities[key] = identity
            return
        }
        guard !identities.contains(where: { $0.key.provider == key.provider && $0.value.memberId == request.memberId }) else {
            throw ServiceFailure.providerLinked(key.provider)
        }
        let identity = Identity(memberId: request.memberId, email: Self.email(token: request.identity.email, stored: nil, app: request.email),
                                emailVerified: Self.verified(token: request.identity.email, flag: request.identity.emailVerified,
                                                             stored: nil, storedFlag: nil),
                                name: request.identity.name ?? request.name, picture: request.identity.pictureUrl, linkedAt: Date(),
                                isPrivateEmail: request.identity.isPrivateEmail, holdsGrant: request.identity.sealedCredential != nil)
        identities[key] = identity
        let details = MemberDetails(email: member.email, name: member.name, picture: member.pictureUrl)
        var changed = member
        if let filled = details.fillingGaps(from: MemberDetails(email: identity.email, name: identity.name, picture: identity.picture)) {
            (changed.email, changed.name, changed.pictureUrl) = (filled.email, filled.name, filled.picture)
            events.append((Events.memberUpdated.name, request.memberId))
        }
        members[request.memberId] = refreshed(changed)
        events.append((Events.identityLinked.name, request.memberId))
    }

    func unlink(_ request: UnlinkIdentityRequest) async throws {
        guard let member = members[request.memberId] else { throw ServiceFailure.memberGone }
        guard member.suspension == nil else { throw ServiceFailure.memberSuspended }
        let owned = identities.filter { $0.value.memberId == request.memberId }
        guard let key = owned.keys.first(where: { $0.provider == request.provider }) else {
            throw ServiceFailure.notLinked(request.provider)
        }
        guard owned.count > 1 else { throw ServiceFailure.lastIdentity }
        identities[key] = nil
        members[request.memberId] = refreshed(member)
        events.append((Events.identityUnlinked.name, request.memberId))
    }

    func delete(memberId: Int64, reason: String, actor: AdminActor?) async throws -> Bool {
        guard members[memberId] != nil else { return false }
        members[memberId] = nil
        identities = identities.filter { $0.value.memberId != memberId }
        events.append((Events.memberDeleted.name, memberId))
        return true
    }

    func handle(_ notification: AppleNotification) async throws -> AppleNotificationOutcome {
        if let first = notifications[notification.jti] { return first }
        var outcome = AppleNotificationOutcome(memberId: nil, memberDeleted: false)
        let key = Key(provider: .apple, subject: notification.subject)
        // An event from before the link (about an earlier account of the same Apple user) changes nothing;
        // contract dates carry whole seconds, so an event in the second of the link counts as after it.
        if let identity = identities[key],
           identity.linkedAt.timeIntervalSince1970.rounded(.down) <= (notification.eventTime ?? notification.issuedAt).timeIntervalSince1970 {
            outcome.memberId = identity.memberId
            switch AppleNotificationAction(type: notification.type) {
            case .endIdentity:
                outcome.identityEnded = true
                events.append((Events.identityUnlinked.name, identity.memberId))
                if identities.values.filter({ $0.memberId == identity.memberId }).count == 1 {
                    outcome.memberDeleted = try await delete(memberId: identity.memberId, reason: "apple-\(notification.type)")
                } else {
                    identities[key] = nil
                    members[identity.memberId] = members[identity.memberId].map(refreshed)
                }
            case .setEmailDisabled:
                // Apple's notification vouches for no email: a new address is unverified.
                if let email = notification.email, email != identity.email {
                    identities[key]?.email = email
                    identities[key]?.emailVerified = false
                }
            case .none:
                break
            }
        }
        notifications[notification.jti] = outcome
        events.append((Events.appleNotification.name, outcome.memberId))
        return outcome
    }

    func use(_ nonce: UsedNonce) async throws {
        guard usedNonces.insert(nonce.id).inserted else {
            throw ServiceFailure(.invalidProviderToken, "This nonce was used already: ask for a new one.", reason: NonceRefusal.used)
        }
    }

    func find(_ search: MemberSearch, limit: Int) async throws -> [AdminMemberSummary] {
        let found: Set<Int64>
        switch search {
        case .identity(let provider, let subject):
            found = Set(identities[Key(provider: provider, subject: subject)].map { [$0.memberId] } ?? [])
        case .email(let email):
            let email = email.lowercased()
            found = Set(members.values.filter { $0.email?.lowercased() == email }.map(\.memberId))
                .union(identities.values.filter { $0.email?.lowercased() == email }.map(\.memberId))
        }
        return found.sorted().prefix(limit).compactMap { members[$0].map(refreshed) }.map { member in
            AdminMemberSummary(memberId: member.memberId, email: member.email, name: member.name, status: member.status,
                               providers: member.identities.map(\.provider), createdAt: member.createdAt)
        }
    }

    func dossier(_ memberId: Int64) async throws -> MemberDossier? {
        guard let member = members[memberId].map(refreshed) else { return nil }
        let stored = identities.filter { $0.value.memberId == memberId }
            .sorted { ($0.value.linkedAt, $0.key.provider.rawValue) < ($1.value.linkedAt, $1.key.provider.rawValue) }
            .map { key, identity in
                AdminIdentity(provider: key.provider, subject: key.subject, email: identity.email, emailVerified: identity.emailVerified,
                              isPrivateEmail: identity.isPrivateEmail, name: identity.name, pictureUrl: identity.picture,
                              linkedAt: identity.linkedAt, lastLoginAt: identity.lastLoginAt, holdsGrant: identity.holdsGrant)
            }
        return MemberDossier(record: member, identities: stored, updatedAt: updatedAt[memberId] ?? member.createdAt)
    }

    func setSuspension(memberId: Int64, suspended: Bool, admin: String, reason: String) async throws -> SuspensionChange? {
        guard var member = members[memberId] else { return nil }
        let generation = generations[memberId] ?? 0
        guard (member.suspension != nil) != suspended else { return SuspensionChange(changed: false, generation: generation) }
        member.suspension = suspended ? Suspension(since: Date(), admin: admin, reason: reason) : nil
        members[memberId] = member
        generations[memberId] = generation + 1
        updatedAt[memberId] = Date()
        events.append((suspended ? Events.memberSuspended.name : Events.memberUnsuspended.name, memberId))
        return SuspensionChange(changed: true, generation: generation + 1)
    }

    /// The member with its identities as they are now, oldest link first.
    private func refreshed(_ member: MemberRecord) -> MemberRecord {
        var member = member
        member.identities = identities.filter { $0.value.memberId == member.memberId }
            .map { LinkedIdentity(provider: $0.key.provider, email: $0.value.email, emailVerified: $0.value.emailVerified,
                                  linkedAt: $0.value.linkedAt) }
            .sorted { ($0.linkedAt, $0.provider.rawValue) < ($1.linkedAt, $1.provider.rawValue) }
        return member
    }
}
