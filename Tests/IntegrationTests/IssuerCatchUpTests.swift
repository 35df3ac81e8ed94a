import Contracts
import Foundation
import Testing
import TestSupport

/// The issuer's event consumer is durable: a member deleted while every issuer that consumes
/// events was down has its sessions ended once one is back. On a stack of its own: the test stops
/// its issuer.
@Suite("Issuer catches up after downtime")
struct IssuerCatchUpTests {
    private static let stack = TestStack.isolated()

    @Test("issuer stopped, member deleted, issuer started: the member's sessions end")
    func catchUp() async throws {
        let stack = try await Self.stack.running()
        let (phone, tablet) = try await stack.memberOnTwoDevices()

        // A stand-in replica answers requests (the sessions asked for below) but consumes no events.
        let standIn = await stack.startIssuerReplica(consumesEvents: false)
        await stack.issuer.stop()
        do {
            try await stack.publish(Events.memberDeleted, MemberDeleted(memberId: phone.memberId, grants: [], reason: "requested"))
            try await Task.sleep(for: .seconds(1))  // a fixed window is the check: nobody consumes the event
            // Nobody consumed the event: the sessions are still live.
            let live = try await stack.get("/api/auth/sessions", bearer: phone.accessToken)
            #expect(live.status == 200, "body: \(live.text)")
            #expect(try live.data([SessionResponse].self).count == 2)
        } catch {
            await stack.issuer.start()
            await standIn.stop()
            throw error
        }
        await stack.issuer.start()
        await standIn.stop()

        for login in [phone, tablet] {
            let refused = try await stack.me(login.accessToken, until: 401, timeout: .seconds(10))
            #expect(refused.status == 401, "body: \(refused.text)")
            #expect(try await stack.refresh(login.refreshToken).failure?.code == .invalidRefreshToken)
        }
    }
}
