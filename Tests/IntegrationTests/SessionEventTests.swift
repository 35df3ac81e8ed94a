import Contracts
import Foundation
import Testing
import TestSupport

/// Every ended session is published as `session.ended` with its reason; a reuse also as
/// `refresh-token.reused`.
@Suite("Session events")
struct SessionEventTests {
    @Test("logout publishes session.ended with reason logout")
    func logout() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let memberId = login.memberId
        let events = try await stack.events(Events.sessionEnded, during: {
            let response = try await stack.send("POST", "/api/auth/logout", bearer: login.accessToken)
            #expect(response.status == 204)
        }, until: { seen in seen.contains { $0.data.memberId == memberId } })
        let event = try #require(events.first { $0.data.memberId == memberId })
        #expect(event.data.reason == "logout")
        #expect(event.type == "session.ended")
        let expiry = try #require(event.data.tokensExpireAt)
        #expect(expiry > Date() && expiry <= Date().addingTimeInterval(901))
    }

    @Test("a new login on the same device publishes session.ended with reason replaced")
    func replaced() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()
        let first = try await stack.googleSession(sub: sub)
        let memberId = first.memberId
        let events = try await stack.events(Events.sessionEnded, during: {
            _ = try await stack.googleLogin(sub: sub)
        }, until: { seen in seen.contains { $0.data.memberId == memberId } })
        #expect(events.filter { $0.data.memberId == memberId }.map(\.data.reason) == ["replaced"])
        // The replaced session's access token is refused too.
        #expect(try await stack.me(first.accessToken, until: 401, timeout: .seconds(10)).status == 401)
    }

    @Test("a reuse after the grace window publishes refresh-token.reused and session.ended (reuse)")
    func reuse() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let memberId = login.memberId
        #expect(try await stack.refresh(login.refreshToken).status == 200)
        // The reuse grace passes (a wall-clock rule; a longer wait is still past it).
        try await Task.sleep(for: TestStack.reuseGrace + .milliseconds(1500))

        var ended: [EventEnvelope<SessionEnded>] = []
        let reused = try await stack.events(Events.refreshTokenReused, during: {
            ended = try await stack.events(Events.sessionEnded, during: {
                let response = try await stack.refresh(login.refreshToken)
                #expect(response.failure?.code == .refreshTokenReused)
            }, until: { seen in seen.contains { $0.data.memberId == memberId } })
        }, until: { seen in seen.contains { $0.data.memberId == memberId } })
        #expect(reused.filter { $0.data.memberId == memberId }.count == 1)
        #expect(ended.filter { $0.data.memberId == memberId }.map(\.data.reason) == ["reuse"])
        #expect(try await stack.me(login.accessToken, until: 401, timeout: .seconds(10)).status == 401)
    }
}

/// The issuer ends sessions on the member-service's events: all of a deleted or suspended member's, and
/// those that signed in with an identity that was unlinked.
@Suite("Sessions ended by member events")
struct SessionMemberEventTests {
    @Test("member.deleted ends every session of the member, and the gateway refuses their tokens")
    func memberDeleted() async throws {
        let stack = try await TestStack.shared.running()
        let (phone, tablet) = try await stack.memberOnTwoDevices()
        let other = try await stack.googleSession()

        let memberId = phone.memberId
        let events = try await stack.events(Events.sessionEnded, timeout: .seconds(10), during: {
            try await stack.publish(Events.memberDeleted, MemberDeleted(memberId: memberId, grants: [], reason: "requested"))
        }, until: { seen in seen.filter { $0.data.memberId == memberId }.count == 2 })
        #expect(events.filter { $0.data.memberId == memberId }.map(\.data.reason) == ["member-deleted", "member-deleted"])
        for login in [phone, tablet] {
            #expect(try await stack.me(login.accessToken, until: 401).status == 401)
            #expect(try await stack.refresh(login.refreshToken).failure?.code == .invalidRefreshToken)
        }
        #expect(try await stack.refresh(other.refreshToken).status == 200)

        // Delivered again (at least once): nothing more happens.
        let again = try await stack.events(Events.sessionEnded, timeout: .seconds(2), during: {
            try await stack.publish(Events.memberDeleted, MemberDeleted(memberId: memberId, grants: [], reason: "requested"))
        }, until: { _ in false })
        #expect(again.filter { $0.data.memberId == memberId }.isEmpty)
    }

    @Test("identity.unlinked, whoever unlinked it, ends only the sessions that signed in with it")
    func identityUnlinked() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let memberId = login.memberId

        // Another provider's identity: the Google session stays.
        let apple = try await stack.events(Events.sessionEnded, timeout: .seconds(2), during: {
            try await stack.publish(Events.identityUnlinked, IdentityUnlinked(memberId: memberId, provider: .apple, reason: "consent-revoked"))
        }, until: { _ in false })
        #expect(apple.filter { $0.data.memberId == memberId }.isEmpty)
        #expect(try await stack.get("/api/members/me", bearer: login.accessToken).status == 200)

        // The provider ending the Google identity ends the Google session.
        let google = try await stack.events(Events.sessionEnded, timeout: .seconds(10), during: {
            try await stack.publish(Events.identityUnlinked, IdentityUnlinked(memberId: memberId, provider: .google, reason: "consent-revoked"))
        }, until: { seen in seen.contains { $0.data.memberId == memberId } })
        #expect(google.filter { $0.data.memberId == memberId }.map(\.data.reason) == ["identity-ended"])
        #expect(try await stack.me(login.accessToken, until: 401).status == 401)
        #expect(try await stack.refresh(login.refreshToken).failure?.code == .invalidRefreshToken)

        // The member unlinking Google themselves ends the Google sessions as well.
        let other = try await stack.googleSession(deviceId: "tablet")
        let requested = try await stack.events(Events.sessionEnded, timeout: .seconds(10), during: {
            try await stack.publish(Events.identityUnlinked, IdentityUnlinked(memberId: other.memberId, provider: .google, reason: "requested"))
        }, until: { seen in seen.contains { $0.data.memberId == other.memberId } })
        #expect(requested.filter { $0.data.memberId == other.memberId }.map(\.data.reason) == ["identity-ended"])
        #expect(try await stack.refresh(other.refreshToken).failure?.code == .invalidRefreshToken)
    }

    @Test("a copy of an identity.unlinked from long ago (any identity that reads a durable can have the stream store one again) ends no session started since")
    func oldUnlinkedCopy() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        try await stack.publish(Events.identityUnlinked, IdentityUnlinked(memberId: login.memberId, provider: .google, reason: "requested"),
                                occurredAt: Date().addingTimeInterval(-600))
        // Then a current one for another member: once its session ended, the consumer is past the copy.
        let other = try await stack.googleSession()
        let ended = try await stack.events(Events.sessionEnded, timeout: .seconds(10), during: {
            try await stack.publish(Events.identityUnlinked, IdentityUnlinked(memberId: other.memberId, provider: .google, reason: "requested"))
        }, until: { seen in seen.contains { $0.data.memberId == other.memberId } })
        #expect(ended.contains { $0.data.memberId == other.memberId })
        #expect(!ended.contains { $0.data.memberId == login.memberId }, "the old copy ended a session started after it")
        #expect(try await stack.get("/api/members/me", bearer: login.accessToken).status == 200)
        #expect(try await stack.refresh(login.refreshToken).failure == nil)
    }

    @Test("member.suspended ends the member's sessions and refuses its logins and refreshes; a newer member.unsuspended lifts it, a late suspension does not undo that")
    func memberSuspended() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()
        let phone = try await stack.googleSession(sub: sub, deviceId: "phone")
        let tablet = try await stack.googleSession(sub: sub, deviceId: "tablet")
        let other = try await stack.googleSession()
        let memberId = phone.memberId
        let suspension = MemberSuspended(memberId: memberId, admin: "ops", reason: "test", generation: 1)

        let events = try await stack.events(Events.sessionEnded, timeout: .seconds(10), during: {
            try await stack.publish(Events.memberSuspended, suspension)
        }, until: { seen in seen.filter { $0.data.memberId == memberId }.count == 2 })
        #expect(events.filter { $0.data.memberId == memberId }.map(\.data.reason) == ["suspended", "suspended"])
        for login in [phone, tablet] {
            #expect(try await stack.me(login.accessToken, until: 401).status == 401)
            #expect(try await stack.refresh(login.refreshToken).failure?.code == .memberSuspended)
        }
        #expect(try await stack.googleLogin(sub: sub, deviceId: "phone").failure?.code == .memberSuspended)
        #expect(try await stack.refresh(other.refreshToken).status == 200)

        // Lifted by a newer generation: the ended sessions stay ended, a login starts a new one.
        try await stack.publish(Events.memberUnsuspended, MemberUnsuspended(memberId: memberId, admin: "ops", reason: "test", generation: 2))
        let again = try await poll(timeout: .seconds(10), { try await stack.googleLogin(sub: sub, deviceId: "phone") }, until: { $0.status == 200 })
        #expect(again.status == 200)
        #expect(try await stack.refresh(phone.refreshToken).failure?.code == .invalidRefreshToken)

        // The suspension delivered again, late: it is older than the lifting and changes nothing.
        let late = try await stack.events(Events.sessionEnded, timeout: .seconds(2), during: {
            try await stack.publish(Events.memberSuspended, suspension)
        }, until: { _ in false })
        #expect(late.filter { $0.data.memberId == memberId }.isEmpty)
        #expect(try await stack.refresh(try again.data(LoginResponse.self).refreshToken).status == 200)
    }
}
