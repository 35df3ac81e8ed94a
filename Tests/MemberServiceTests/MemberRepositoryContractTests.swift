import Contracts
import Foundation
import Testing
import TestSupport
@testable import MemberService

/// What the use cases rely on of a ``MemberRepository``, checked against both: PostgreSQL's `MemberStore`
/// and the ``InMemoryMemberRepository`` that the use cases' millisecond tests stand on, so the fake cannot
/// drift from the store in what those tests take for granted.
@Suite("A member repository keeps its contract, in PostgreSQL and in memory")
struct MemberRepositoryContractTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case postgres, memory
        var testDescription: String { rawValue }
    }

    /// One database for the suite: each test's members are its own.
    private static let database = Task { try await MemberStoreFixture.make() }

    /// A repository of `kind`, and how to read the event types it wrote for a member, oldest first.
    private static func make(_ kind: Kind) async throws -> any MemberRepository {
        try await made(kind).repository
    }

    private static func made(_ kind: Kind) async throws
        -> (repository: any MemberRepository, events: @Sendable (Int64) async throws -> [String]) {
        switch kind {
        case .postgres:
            let fixture = try await database.value
            return (fixture.store, { try await fixture.events($0) })
        case .memory:
            let memory = InMemoryMemberRepository()
            return (memory, { await memory.events(of: $0) })
        }
    }

    private static func login(_ repository: any MemberRepository, _ identity: VerifiedIdentity,
                              timezone: String? = nil) async throws -> MemberLoginReply {
        try await repository.login(MemberLoginRequest(identity: identity, deviceId: "contract", timezone: timezone))
    }

    @Test("a second attempt of one login (its attemptKey and device) gets the first's answer and writes no event; another login does",
          arguments: Kind.allCases)
    func loginAttemptsAreOneLogin(_ kind: Kind) async throws {
        let (repository, events) = try await Self.made(kind)
        let identity = MemberStoreFixture.identity()
        let attempt = MemberLoginRequest(identity: identity, deviceId: "contract", attemptKey: UUID().uuidString)
        let first = try await repository.login(attempt)
        #expect(try await repository.login(attempt) == first)
        #expect(!first.isExistingMember)
        #expect(try await events(first.memberId) == ["member.created", "member.logged-in"])

        var next = attempt
        next.attemptKey = UUID().uuidString
        let again = try await repository.login(next)
        #expect(again == MemberLoginReply(memberId: first.memberId, isExistingMember: true))
        #expect(try await repository.login(next) == again)
        // The first login's key is no longer the identity's: a late attempt of it is a login of an existing member.
        #expect(try await repository.login(attempt) == again)
        // The same key from another device is another login (the issuer starts that device's session).
        var elsewhere = next
        elsewhere.deviceId = "contract-elsewhere"
        #expect(try await repository.login(elsewhere) == again)
        #expect(try await events(first.memberId) == ["member.created"] + Array(repeating: "member.logged-in", count: 4))
    }

    @Test("a key is answered as a resend once: a third attempt of one login (the gateway resends once; a holder of its NATS seed could send more) is a login, with its event",
          arguments: Kind.allCases)
    func loginAttemptResentOnce(_ kind: Kind) async throws {
        let (repository, events) = try await Self.made(kind)
        let attempt = MemberLoginRequest(identity: MemberStoreFixture.identity(), deviceId: "contract", attemptKey: UUID().uuidString)
        let first = try await repository.login(attempt)
        #expect(try await repository.login(attempt) == first)
        #expect(try await repository.login(attempt) == MemberLoginReply(memberId: first.memberId, isExistingMember: true))
        #expect(try await events(first.memberId) == ["member.created", "member.logged-in", "member.logged-in"])
    }

    @Test("a resend that holds Apple's grant its first attempt lacked (that one lost the code exchange) keeps it, with no event",
          arguments: Kind.allCases)
    func loginResendKeepsGrant(_ kind: Kind) async throws {
        let (repository, events) = try await Self.made(kind)
        var attempt = MemberLoginRequest(identity: MemberStoreFixture.identity(.apple), deviceId: "contract", attemptKey: UUID().uuidString)
        let first = try await repository.login(attempt)
        #expect(try await repository.dossier(first.memberId)?.detail.identities.first?.holdsGrant == false)
        attempt.identity.sealedCredential = "grant"
        #expect(try await repository.login(attempt) == first)
        #expect(try await repository.dossier(first.memberId)?.detail.identities.first?.holdsGrant == true)
        #expect(try await events(first.memberId) == ["member.created", "member.logged-in"])
    }

    @Test("a first login creates the member, the next finds it; the profile shows the identity", arguments: Kind.allCases)
    func loginFindsOrCreates(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let identity = MemberStoreFixture.identity(email: "a@example.com", verified: true, name: "A")
        let first = try await Self.login(repository, identity, timezone: "Asia/Seoul")
        let again = try await Self.login(repository, identity)
        #expect(!first.isExistingMember)
        #expect(again == MemberLoginReply(memberId: first.memberId, isExistingMember: true))
        let profile = try #require(try await repository.member(first.memberId)).profile
        #expect(profile.email == "a@example.com" && profile.emailVerified && profile.name == "A" && profile.timezone == "Asia/Seoul")
        #expect(profile.identities.map(\.provider) == [.google])
        #expect(try await repository.member(first.memberId + 1_000_000) == nil)
    }

    @Test("a link is refused for another member's identity or a second of one provider, and is idempotent", arguments: Kind.allCases)
    func linkRules(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = try await Self.login(repository, MemberStoreFixture.identity()).memberId
        let other = MemberStoreFixture.identity(.kakao)
        let otherMember = try await Self.login(repository, other).memberId
        let taken = await failure { try await repository.link(LinkIdentityRequest(memberId: member, accessToken: "t", identity: other)) }
        #expect(taken?.code == .identityInUse)
        let secondGoogle = await failure {
            try await repository.link(LinkIdentityRequest(memberId: member, accessToken: "t", identity: MemberStoreFixture.identity()))
        }
        #expect(secondGoogle?.code == .identityInUse)
        let apple = MemberStoreFixture.identity(.apple, email: "x@privaterelay.appleid.com", verified: true)
        try await repository.link(LinkIdentityRequest(memberId: member, accessToken: "t", identity: apple))
        try await repository.link(LinkIdentityRequest(memberId: member, accessToken: "t", identity: apple))
        #expect(try #require(try await repository.member(member)).identities.map(\.provider) == [.google, .apple])
        #expect(try #require(try await repository.member(otherMember)).identities.map(\.provider) == [.kakao])
        let gone = await failure { try await repository.link(LinkIdentityRequest(memberId: member + 1_000_000, accessToken: "t", identity: apple)) }
        #expect(gone?.code == .unauthorized)
    }

    @Test("an unlink needs the identity and another one; a deletion happens once", arguments: Kind.allCases)
    func unlinkAndDelete(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = try await Self.login(repository, MemberStoreFixture.identity()).memberId
        let last = await failure { try await repository.unlink(UnlinkIdentityRequest(memberId: member, accessToken: "t", provider: .google)) }
        #expect(last?.code == .lastIdentity)
        let none = await failure { try await repository.unlink(UnlinkIdentityRequest(memberId: member, accessToken: "t", provider: .naver)) }
        #expect(none?.code == .notFound)
        try await repository.link(LinkIdentityRequest(memberId: member, accessToken: "t", identity: MemberStoreFixture.identity(.naver)))
        try await repository.unlink(UnlinkIdentityRequest(memberId: member, accessToken: "t", provider: .google))
        #expect(try #require(try await repository.member(member)).identities.map(\.provider) == [.naver])
        #expect(try await repository.delete(memberId: member, reason: "requested"))
        #expect(try await !repository.delete(memberId: member, reason: "requested"))
        #expect(try await repository.member(member) == nil)
    }

    @Test("an update changes what it names and keeps the rest; a gone member is unauthorized", arguments: Kind.allCases)
    func update(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = try await Self.login(repository, MemberStoreFixture.identity(name: "Old"), timezone: "Asia/Seoul").memberId
        try await repository.update(MemberUpdateRequest(memberId: member, accessToken: "t", name: "  New  ", locale: "KO-kr"))
        let profile = try #require(try await repository.member(member)).profile
        #expect(profile.name == "New" && profile.locale == "ko-KR" && profile.timezone == "Asia/Seoul")
        let gone = await failure { try await repository.update(MemberUpdateRequest(memberId: member + 1_000_000, accessToken: "t", name: "X")) }
        #expect(gone?.code == .unauthorized)
    }

    @Test("a first login writes member.created then member.logged-in; a returning one that changes the member, member.updated first",
          arguments: Kind.allCases)
    func loginEvents(_ kind: Kind) async throws {
        let (repository, events) = try await Self.made(kind)
        let identity = MemberStoreFixture.identity(name: "A")
        let member = try await Self.login(repository, identity).memberId
        _ = try await Self.login(repository, identity)
        _ = try await Self.login(repository, identity, timezone: "Asia/Seoul")
        #expect(try await events(member) == ["member.created", "member.logged-in", "member.logged-in", "member.updated", "member.logged-in"])
    }

    @Test("a returning login: the member follows the identity's new name where it was the identity's, keeps its own, takes a time zone sent",
          arguments: Kind.allCases)
    func returningLoginFollows(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        var identity = MemberStoreFixture.identity(name: "Old")
        let member = try await Self.login(repository, identity, timezone: "Asia/Seoul").memberId
        identity.name = "New"
        _ = try await Self.login(repository, identity, timezone: "Europe/Paris")
        var profile = try #require(try await repository.member(member)).profile
        #expect(profile.name == "New" && profile.timezone == "Europe/Paris")
        try await repository.update(MemberUpdateRequest(memberId: member, accessToken: "t", name: "Mine"))
        identity.name = "Newer"
        _ = try await Self.login(repository, identity)
        profile = try #require(try await repository.member(member)).profile
        #expect(profile.name == "Mine" && profile.timezone == "Europe/Paris")
    }

    @Test("an Apple notification about the subject from before the link changes nothing", arguments: Kind.allCases)
    func appleBeforeLink(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let apple = MemberStoreFixture.identity(.apple)
        let member = try await Self.login(repository, apple).memberId
        let earlier = Date().addingTimeInterval(-3_600)
        let outcome = try await repository.handle(AppleNotification(type: "account-delete", subject: apple.subject, eventTime: earlier,
                                                                    jti: UUID().uuidString, issuedAt: Date()))
        #expect(outcome.memberId == nil && !outcome.identityEnded && !outcome.memberDeleted)
        #expect(try await repository.member(member) != nil)
    }

    @Test("a nonce is used once", arguments: Kind.allCases)
    func nonceOnce(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let nonce = UsedNonce(id: UUID().uuidString, expiresAt: Int64(Date().timeIntervalSince1970) + 600)
        try await repository.use(nonce)
        let again = await failure { try await repository.use(nonce) }
        #expect(again?.code == .invalidProviderToken && again?.reason == NonceRefusal.used)
    }

    @Test("a login spends its nonce first: its replay is refused and makes no member; a login refused after (a suspended member's) spends it too",
          arguments: Kind.allCases)
    func loginSpendsItsNonce(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let expiresAt = Int64(Date().timeIntervalSince1970) + 600
        let nonce = UsedNonce(id: UUID().uuidString, expiresAt: expiresAt)
        let identity = MemberStoreFixture.identity()
        let first = try await repository.login(MemberLoginRequest(identity: identity, deviceId: "d", nonce: nonce))
        let fresh = MemberStoreFixture.identity()
        let replay = await failure { _ = try await repository.login(MemberLoginRequest(identity: fresh, deviceId: "d", nonce: nonce)) }
        #expect(replay?.code == .invalidProviderToken && replay?.reason == NonceRefusal.used)
        #expect(await failure { try await repository.use(nonce) }?.reason == NonceRefusal.used)
        // The replay made no member of its identity: a login of it without the nonce is its first.
        #expect(try await Self.login(repository, fresh).isExistingMember == false)

        _ = try await repository.setSuspension(memberId: first.memberId, suspended: true, admin: "ops", reason: "r")
        let another = UsedNonce(id: UUID().uuidString, expiresAt: expiresAt)
        let suspended = await failure {
            _ = try await repository.login(MemberLoginRequest(identity: identity, deviceId: "d", nonce: another))
        }
        #expect(suspended?.code == .memberSuspended)
        let refused = await failure { try await repository.use(another) }
        #expect(refused?.reason == NonceRefusal.used)
    }

    @Test("a suspension sets the status and a new generation with its event once; a repeat changes nothing; lifting it adds one more",
          arguments: Kind.allCases)
    func suspension(_ kind: Kind) async throws {
        let (repository, events) = try await Self.made(kind)
        let member = try await Self.login(repository, MemberStoreFixture.identity()).memberId
        #expect(try await repository.setSuspension(memberId: member, suspended: false, admin: "ops", reason: "r")
            == SuspensionChange(changed: false, generation: 0))
        #expect(try await repository.setSuspension(memberId: member, suspended: true, admin: "ops", reason: "fraud")
            == SuspensionChange(changed: true, generation: 1))
        #expect(try await repository.setSuspension(memberId: member, suspended: true, admin: "other", reason: "again")
            == SuspensionChange(changed: false, generation: 1))
        let record = try #require(try await repository.member(member))
        #expect(record.status == .suspended && record.suspension?.admin == "ops" && record.suspension?.reason == "fraud")
        #expect(try await repository.setSuspension(memberId: member, suspended: false, admin: "ops", reason: "cleared")
            == SuspensionChange(changed: true, generation: 2))
        #expect(try #require(try await repository.member(member)).suspension == nil)
        #expect(try await events(member) == ["member.created", "member.logged-in", "member.suspended", "member.unsuspended"])
        #expect(try await repository.setSuspension(memberId: member + 1_000_000, suspended: true, admin: "ops", reason: "r") == nil)
    }

    @Test("a suspended member's login, update, link and unlink are refused with nothing written; a deletion still happens",
          arguments: Kind.allCases)
    func suspendedRefusals(_ kind: Kind) async throws {
        let (repository, events) = try await Self.made(kind)
        let identity = MemberStoreFixture.identity(name: "A")
        let member = try await Self.login(repository, identity).memberId
        try await repository.link(LinkIdentityRequest(memberId: member, accessToken: "t", identity: MemberStoreFixture.identity(.kakao)))
        _ = try await repository.setSuspension(memberId: member, suspended: true, admin: "ops", reason: "fraud")
        let written = try await events(member)
        var changed = identity
        changed.name = "B"
        let login = await failure { _ = try await Self.login(repository, changed, timezone: "Asia/Seoul") }
        let update = await failure { try await repository.update(MemberUpdateRequest(memberId: member, accessToken: "t", name: "C")) }
        let link = await failure {
            try await repository.link(LinkIdentityRequest(memberId: member, accessToken: "t", identity: MemberStoreFixture.identity(.naver)))
        }
        let unlink = await failure { try await repository.unlink(UnlinkIdentityRequest(memberId: member, accessToken: "t", provider: .kakao)) }
        for refusal in [login, update, link, unlink] {
            #expect(refusal == ServiceFailure.memberSuspended)
        }
        #expect(try await events(member) == written)
        let record = try #require(try await repository.member(member))
        #expect(record.name == "A" && record.timezone == nil && record.identities.map(\.provider) == [.google, .kakao])
        #expect(try await repository.delete(memberId: member, reason: "admin", actor: AdminActor(admin: "ops", reason: "asked")))
        #expect(try await repository.member(member) == nil)
    }

    @Test("a search finds the member of an identity, or the members of an email in any case, lowest ID first, at most the limit",
          arguments: Kind.allCases)
    func find(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let email = "\(UUID().uuidString)@Example.com"
        let google = MemberStoreFixture.identity(email: email, verified: true, name: "G")
        let first = try await Self.login(repository, google).memberId
        let second = try await Self.login(repository, MemberStoreFixture.identity(.kakao)).memberId
        // The second member's identity has the email; its own email is another.
        try await repository.link(LinkIdentityRequest(memberId: second, accessToken: "t",
                                                      identity: MemberStoreFixture.identity(.naver, email: email.uppercased())))
        let third = try await Self.login(repository, MemberStoreFixture.identity(.apple, email: email.lowercased())).memberId
        _ = try await repository.setSuspension(memberId: third, suspended: true, admin: "ops", reason: "r")

        let byIdentity = try await repository.find(.identity(.google, subject: google.subject), limit: 1)
        #expect(byIdentity.map(\.memberId) == [first])
        #expect(byIdentity.first?.email == email && byIdentity.first?.name == "G" && byIdentity.first?.status == .active)
        #expect(byIdentity.first?.providers == [.google])
        #expect(try await repository.find(.identity(.kakao, subject: google.subject), limit: 5).isEmpty)

        let byEmail = try await repository.find(.email(email.lowercased()), limit: 100)
        #expect(byEmail.map(\.memberId) == [first, second, third])
        #expect(byEmail.map(\.status) == [.active, .active, .suspended])
        #expect(byEmail[1].providers == [.kakao, .naver])
        #expect(try await repository.find(.email(email), limit: 2).map(\.memberId) == [first, second])
        #expect(try await repository.find(.email("nobody-\(email)"), limit: 5).isEmpty)
    }

    @Test("an admin's view holds the profile, the suspension and each identity as stored; none for an unknown or deleted member",
          arguments: Kind.allCases)
    func dossier(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let apple = MemberStoreFixture.identity(.apple, email: "a@privaterelay.appleid.com", verified: true, name: "A", sealed: "grant")
        let member = try await Self.login(repository, apple, timezone: "Asia/Seoul").memberId
        let kakao = MemberStoreFixture.identity(.kakao, email: "k@example.com", verified: false)
        try await repository.link(LinkIdentityRequest(memberId: member, accessToken: "t", identity: kakao))
        _ = try await repository.setSuspension(memberId: member, suspended: true, admin: "ops", reason: "fraud")
        let dossier = try #require(try await repository.dossier(member))
        let detail = dossier.detail
        #expect(detail.profile == dossier.record.profile && detail.profile.memberId == member && detail.profile.timezone == "Asia/Seoul")
        #expect(detail.status == .suspended && detail.suspension?.admin == "ops" && detail.suspension?.reason == "fraud")
        #expect(detail.identities.map(\.provider) == [.apple, .kakao])
        #expect(detail.identities.map(\.subject) == [apple.subject, kakao.subject])
        #expect(detail.identities.map(\.holdsGrant) == [true, false])
        #expect(detail.identities.map(\.email) == ["a@privaterelay.appleid.com", "k@example.com"])
        #expect(detail.identities.map(\.emailVerified) == [true, false])
        #expect(detail.identities.first?.name == "A" && detail.identities.first?.lastLoginAt != nil)
        #expect(try await repository.dossier(member + 1_000_000) == nil)
        _ = try await repository.delete(memberId: member, reason: "admin", actor: AdminActor(admin: "ops", reason: "r"))
        #expect(try await repository.dossier(member) == nil)
    }

    @Test("Apple's consent-revoked of a member's only identity deletes it, once per jti", arguments: Kind.allCases)
    func appleConsentRevoked(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let apple = MemberStoreFixture.identity(.apple)
        let member = try await Self.login(repository, apple).memberId
        let notification = AppleNotification(type: "consent-revoked", subject: apple.subject, eventTime: Date().addingTimeInterval(60),
                                             jti: UUID().uuidString, issuedAt: Date())
        let outcome = try await repository.handle(notification)
        #expect(outcome.memberId == member && outcome.identityEnded && outcome.memberDeleted)
        #expect(try await repository.member(member) == nil)
        #expect(try await repository.handle(notification) == outcome)
    }
}
