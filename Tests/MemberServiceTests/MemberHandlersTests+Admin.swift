import Contracts
import Foundation
import Testing
import TestSupport
@testable import MemberService

/// The admin-api's calls and a suspension's refusals, on the in-memory repository with the issuer stood in for.
extension MemberHandlersTests {
    private static let admin = AdminActor(admin: "ops-kim", reason: "fraud report #12")

    /// A member, logged in with a Google identity.
    private func member() async throws -> Int64 {
        try await login(MemberLoginRequest(identity: identity(), deviceId: "d")).memberId
    }

    @Test("a suspension is written once with its event and told to the issuer with its generation, a repeat told again; lifting adds one")
    func suspension() async throws {
        issuer.answer(Endpoints.memberSuspension) { request in SessionsEnded(sessionIds: request.suspended ? ["s1", "s2"] : []) }
        let member = try await member()
        let first = try await handlers.adminSuspend(AdminMemberRequest(actor: Self.admin, memberId: member))
        #expect(first == AdminSuspensionReply(memberId: member, status: .suspended, changed: true,
                                              sessionsEnded: SessionsEnded(sessionIds: ["s1", "s2"])))
        let again = try await handlers.adminSuspend(AdminMemberRequest(actor: Self.admin, memberId: member))
        #expect(again.changed == false && again.status == .suspended)
        let lifted = try await handlers.adminUnsuspend(AdminMemberRequest(actor: Self.admin, memberId: member))
        #expect(lifted.changed && lifted.status == .active && lifted.sessionsEnded == SessionsEnded(sessionIds: []))
        #expect(issuer.requests(to: Endpoints.memberSuspension)
            == [MemberSuspensionRequest(memberId: member, suspended: true, generation: 1),
                MemberSuspensionRequest(memberId: member, suspended: true, generation: 1),
                MemberSuspensionRequest(memberId: member, suspended: false, generation: 2)])
        #expect(await repository.events(of: member) == ["member.created", "member.logged-in", "member.suspended", "member.unsuspended"])
    }

    @Test("a suspension needs a named admin and a reason, and a member; the issuer is not told of a refused one")
    func suspensionRefusals() async throws {
        issuer.answer(Endpoints.memberSuspension, with: SessionsEnded(sessionIds: []))
        let member = try await member()
        for actor in [AdminActor(admin: "ops-kim"), AdminActor(admin: "", reason: "r"), AdminActor(admin: "ops", reason: "two\nlines"),
                      AdminActor(admin: "ops", reason: String(repeating: "r", count: FieldLimits.adminReason + 1))] {
            let refused = await failure { _ = try await handlers.adminSuspend(AdminMemberRequest(actor: actor, memberId: member)) }
            #expect(refused?.code == .invalidRequest, "\(actor)")
        }
        let unknown = await failure { _ = try await handlers.adminSuspend(AdminMemberRequest(actor: Self.admin, memberId: member + 1_000)) }
        #expect(unknown?.code == .notFound)
        #expect(issuer.requests(to: Endpoints.memberSuspension).isEmpty)
        #expect(try #require(try await repository.member(member)).status == .active)
    }

    @Test("an issuer that cannot be reached fails the call; the suspension stays, and a retry tells the issuer")
    func suspensionIssuerDown() async throws {
        issuer.refuse(Endpoints.memberSuspension, with: .unavailable)
        let member = try await member()
        let down = await failure { _ = try await handlers.adminSuspend(AdminMemberRequest(actor: Self.admin, memberId: member)) }
        #expect(down?.code == .serviceUnavailable)
        #expect(try #require(try await repository.member(member)).status == .suspended)
        issuer.answer(Endpoints.memberSuspension, with: SessionsEnded(sessionIds: ["s1"]))
        let retried = try await handlers.adminSuspend(AdminMemberRequest(actor: Self.admin, memberId: member))
        #expect(!retried.changed && retried.sessionsEnded?.sessionIds == ["s1"])
        #expect(issuer.requests(to: Endpoints.memberSuspension).map(\.generation) == [1, 1])
    }

    @Test("a suspended member's login and its member-scoped calls answer MEMBER_SUSPENDED, with nothing written or handed on")
    func suspendedMemberRefused() async throws {
        issuer.answer(Endpoints.memberSuspension, with: SessionsEnded(sessionIds: []))
        let google = identity()
        let member = try await login(MemberLoginRequest(identity: google, deviceId: "d")).memberId
        _ = try await handlers.link(LinkIdentityRequest(memberId: member, accessToken: try token(member),
                                                        identity: identity(.kakao, signedInAt: Self.now)))
        _ = try await handlers.adminSuspend(AdminMemberRequest(actor: Self.admin, memberId: member))
        let written = await repository.events.count
        let refusals = [
            await failure { _ = try await login(MemberLoginRequest(identity: google, deviceId: "d")) },
            await failure { _ = try await handlers.profile(MemberGetRequest(memberId: member, accessToken: try token(member))) },
            await failure { _ = try await handlers.update(MemberUpdateRequest(memberId: member, accessToken: try token(member), name: "X")) },
            await failure {
                _ = try await handlers.link(LinkIdentityRequest(memberId: member, accessToken: try token(member),
                                                                identity: identity(.naver, signedInAt: Self.now)))
            },
            await failure {
                _ = try await handlers.unlink(UnlinkIdentityRequest(memberId: member, accessToken: try token(member), provider: .kakao))
            },
            await failure { _ = try await handlers.delete(MemberDeleteRequest(memberId: member, accessToken: try token(member))) },
        ]
        #expect(refusals == Array(repeating: ServiceFailure.memberSuspended, count: refusals.count))
        #expect(await repository.events.count == written)
        #expect(issuer.requests(to: Endpoints.endIdentitySessions).isEmpty && issuer.requests(to: Endpoints.endDeletedMember).isEmpty)

        _ = try await handlers.adminUnsuspend(AdminMemberRequest(actor: Self.admin, memberId: member))
        #expect(try await login(MemberLoginRequest(identity: google, deviceId: "d")).memberId == member)
    }

    @Test("a login hands its client's platform and app version on to the issuer, cleaned and cut, and keeps its client for the event")
    func loginClient() async throws {
        let long = String(repeating: "v", count: FieldLimits.appVersion + 10)
        let client = ClientContext(address: "2001:db8::1\n", platform: "iOS\u{0}18.1", appVersion: long)
        let handed = try await login(MemberLoginRequest(identity: identity(), deviceId: "d", client: client))
        #expect(handed.platform == "iOS 18.1" && handed.appVersion == String(repeating: "v", count: FieldLimits.appVersion))
        #expect(await repository.logins.last?.client
            == ClientContext(address: "2001:db8::1", platform: "iOS 18.1", appVersion: String(repeating: "v", count: FieldLimits.appVersion)))
        let bare = try await login(MemberLoginRequest(identity: identity(), deviceId: "d"))
        #expect(bare.platform == nil && bare.appVersion == nil)
    }

    @Test("a search is one of an identity or an email, within its limits; it finds by either")
    func find() async throws {
        let email = "\(UUID().uuidString)@example.com"
        let google = identity(email: email, verified: true)
        let member = try await login(MemberLoginRequest(identity: google, deviceId: "d")).memberId
        let bad = [
            AdminFindMembersRequest(actor: Self.admin, email: email, limit: 0),
            AdminFindMembersRequest(actor: Self.admin, email: email, limit: 101),
            AdminFindMembersRequest(actor: Self.admin),
            AdminFindMembersRequest(actor: Self.admin, provider: .google, subject: google.subject, email: email),
            AdminFindMembersRequest(actor: Self.admin, provider: .google),
            AdminFindMembersRequest(actor: Self.admin, subject: google.subject),
            AdminFindMembersRequest(actor: Self.admin, email: "a\u{7}@example.com"),
            AdminFindMembersRequest(actor: Self.admin, email: String(repeating: "a", count: FieldLimits.email + 1)),
            AdminFindMembersRequest(actor: Self.admin, provider: .google, subject: String(repeating: "s", count: FieldLimits.subject + 1)),
            AdminFindMembersRequest(actor: AdminActor(admin: ""), email: email),
        ]
        for request in bad {
            let refused = await failure { _ = try await handlers.adminFind(request) }
            #expect(refused?.code == .invalidRequest, "\(request)")
        }
        let reader = AdminActor(admin: "ops-kim")
        #expect(try await handlers.adminFind(AdminFindMembersRequest(actor: reader, provider: .google, subject: google.subject))
            .members.map(\.memberId) == [member])
        #expect(try await handlers.adminFind(AdminFindMembersRequest(actor: reader, email: email.uppercased(), limit: 1))
            .members.map(\.memberId) == [member])
    }

    @Test("an admin's view of a member shows its profile, status and identities; NOT_FOUND for an unknown or deleted one")
    func detail() async throws {
        issuer.answer(Endpoints.memberSuspension, with: SessionsEnded(sessionIds: []))
        let member = try await login(MemberLoginRequest(identity: identity(email: "a@example.com", verified: true), deviceId: "d")).memberId
        _ = try await handlers.adminSuspend(AdminMemberRequest(actor: Self.admin, memberId: member))
        let detail = try await handlers.adminMember(AdminMemberRequest(actor: AdminActor(admin: "ops-kim"), memberId: member))
        #expect(detail.profile.memberId == member && detail.profile.email == "a@example.com" && detail.profile.emailVerified)
        #expect(detail.status == .suspended && detail.suspension?.reason == Self.admin.reason && detail.identities.map(\.provider) == [.google])
        let unknown = await failure { _ = try await handlers.adminMember(AdminMemberRequest(actor: Self.admin, memberId: member + 1_000)) }
        #expect(unknown?.code == .notFound)
    }

    @Test("an admin's deletion is the member's own, recorded with its admin; it needs a reason; a gone member is NOT_FOUND")
    func adminDelete() async throws {
        issuer.answer(Endpoints.memberSuspension, with: SessionsEnded(sessionIds: []))
        let member = try await member()
        _ = try await handlers.adminSuspend(AdminMemberRequest(actor: Self.admin, memberId: member))
        let unexplained = await failure { _ = try await handlers.adminDelete(AdminMemberRequest(actor: AdminActor(admin: "ops"), memberId: member)) }
        #expect(unexplained?.code == .invalidRequest)
        let deleted = try await handlers.adminDelete(AdminMemberRequest(actor: Self.admin, memberId: member))
        #expect(deleted.deleted && deleted.sessionsEnded?.sessionIds == ["s1"])
        #expect(issuer.requests(to: Endpoints.endDeletedMember).map(\.memberId) == [member])
        #expect(await repository.events(of: member).last == Events.memberDeleted.name)
        let again = await failure { _ = try await handlers.adminDelete(AdminMemberRequest(actor: Self.admin, memberId: member)) }
        #expect(again?.code == .notFound)
        let gone = await failure { _ = try await handlers.adminMember(AdminMemberRequest(actor: Self.admin, memberId: member)) }
        #expect(gone?.code == .notFound)
        #expect(issuer.requests(to: Endpoints.endDeletedMember).count == 1)
    }
}
