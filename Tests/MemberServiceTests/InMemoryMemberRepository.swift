import Contracts
import Foundation
@testable import MemberService

/// Members and identities in memory, for the use cases' tests that need no PostgreSQL. It keeps the
/// repository's contract (``MemberRepositoryContractTests`` runs the same checks against it and against
/// `MemberStore`), and the precedence rules in their simplest form: a login's details follow the identity it
/// came from, a link fills the member's gaps (``MemberDetails``). Its events are the types written, in order.
actor InMemoryMemberRepository: MemberRepository {
    private struct Identity {
        var memberId: Int64
        var email: String?
        var emailVerified: Bool
        var name: String?
        var picture: String?
        var linkedAt: Date
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
    /// The event types written, oldest first, with the member each names.
    private(set) var events: [(type: String, memberId: Int64?)] = []

    /// The event types written for `memberId`, oldest first.
    func events(of memberId: Int64) -> [String] {
        events.filter { $0.memberId == memberId }.map(\.type)
    }

    func login(_ login: MemberLoginRequest) async throws -> MemberLoginReply {
        let key = Key(provider: login.identity.provider, subject: login.identity.subject)
        let verified = login.identity.email != nil && login.identity.emailVerified == true
        if var identity = identities[key], var member = members[identity.memberId] {
            if let email = login.identity.email { (identity.email, identity.emailVerified) = (email, verified) }
            identity.name = login.identity.name ?? identity.name
            identity.picture = login.identity.pictureUrl ?? identity.picture
            identities[key] = identity
            member.email = identity.email ?? member.email
            member.name = identity.name ?? member.name
            member.pictureUrl = identity.picture ?? member.pictureUrl
            members[identity.memberId] = refreshed(member)
            events.append((Events.memberLoggedIn.name, identity.memberId))
            return MemberLoginReply(memberId: identity.memberId, isExistingMember: true)
        }
        let memberId = nextId
        nextId += 1
        let identity = Identity(memberId: memberId, email: login.identity.email ?? login.email,
                                emailVerified: verified, name: login.identity.name ?? login.name,
                                picture: login.identity.pictureUrl, linkedAt: Date())
        identities[key] = identity
        members[memberId] = refreshed(MemberRecord(memberId: memberId, email: identity.email, name: identity.name,
                                                   pictureUrl: identity.picture, timezone: login.timezone, locale: login.locale,
                                                   identities: [], createdAt: Date()))
        events.append((Events.memberCreated.name, memberId))
        return MemberLoginReply(memberId: memberId, isExistingMember: false)
    }

    func member(_ memberId: Int64) async throws -> MemberRecord? {
        members[memberId].map(refreshed)
    }

    func update(_ request: MemberUpdateRequest) async throws {
        guard var member = members[request.memberId] else { throw ServiceFailure.memberGone }
        let (new, changed) = ProfileUpdate(name: member.name, timezone: member.timezone, locale: member.locale).applying(request)
        guard !changed.isEmpty else { return }
        (member.name, member.timezone, member.locale) = (new.name, new.timezone, new.locale)
        members[request.memberId] = member
        events.append((Events.memberUpdated.name, request.memberId))
    }

    func link(_ request: LinkIdentityRequest) async throws {
        guard let member = members[request.memberId] else { throw ServiceFailure.memberGone }
        let key = Key(provider: request.identity.provider, subject: request.identity.subject)
        if let owner = identities[key] {
            guard owner.memberId == request.memberId else { throw ServiceFailure.identityInUse }
            return
        }
        guard !identities.contains(where: { $0.key.provider == key.provider && $0.value.memberId == request.memberId }) else {
            throw ServiceFailure.providerLinked(key.provider)
        }
        let identity = Identity(memberId: request.memberId, email: request.identity.email ?? request.email,
                                emailVerified: request.identity.email != nil && request.identity.emailVerified == true,
                                name: request.identity.name ?? request.name, picture: request.identity.pictureUrl, linkedAt: Date())
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
        let owned = identities.filter { $0.value.memberId == request.memberId }
        guard let key = owned.keys.first(where: { $0.provider == request.provider }) else {
            throw ServiceFailure.notLinked(request.provider)
        }
        guard owned.count > 1 else { throw ServiceFailure.lastIdentity }
        identities[key] = nil
        members[request.memberId] = refreshed(member)
        events.append((Events.identityUnlinked.name, request.memberId))
    }

    func delete(memberId: Int64, reason: String) async throws -> Bool {
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
        if let identity = identities[key] {
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
                if let email = notification.email, email != identity.email {
                    identities[key]?.email = email
                    identities[key]?.emailVerified = false
                    members[identity.memberId] = members[identity.memberId].map(refreshed)
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
