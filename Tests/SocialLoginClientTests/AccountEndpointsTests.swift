import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SocialLoginClient
import Testing
import TestSupport

/// Logout, sessions, account deletion and identity links through the client. The endpoints are
/// being built in parallel (issues 4 and 5); these run once they are merged.
@Suite("Sessions, logout, deletion and identity links")
struct AccountEndpointsTests {
    @Test("logout ends this device's session on the server and signs out here")
    func logout() async throws {
        try await withSignedInClient { stack, signedIn in
            let refreshToken = try #require(await signedIn.store.loadTokens()).refreshToken
            let states = await signedIn.client.authStates()

            try await signedIn.client.logout()
            #expect(signedIn.proxy.count("POST /api/auth/logout") == 1)
            #expect(await signedIn.store.loadTokens() == nil)
            #expect(await collect(states, count: 2) == [.signedIn(memberId: signedIn.memberId), .signedOut(.loggedOut)])
            let refresh = try await stack.post("/api/auth/refresh", json: ["refreshToken": refreshToken])
            #expect(refresh.status == 401)
        }
    }

    @Test("logout-all ends the sessions of every device")
    func logoutAll() async throws {
        try await withSignedInClient(deviceId: "phone-\(UUID().uuidString)") { stack, signedIn in
            let tablet = makeClient(stack.gatewayURL, deviceId: "tablet-\(UUID().uuidString)")
            try await tablet.login(with: .google(idToken: try await stack.googleToken(sub: signedIn.sub)))

            try await signedIn.client.logoutAll()
            #expect(await signedIn.store.loadTokens() == nil)
            await #expect(throws: APIError.self) { try await tablet.refresh() }
            #expect(try await tablet.currentMemberId() == nil)
        }
    }

    @Test("sessions lists one per device and marks this one; endSession ends another")
    func sessions() async throws {
        let phone = "phone-\(UUID().uuidString)"
        try await withSignedInClient(deviceId: phone) { stack, signedIn in
            let tabletDevice = "tablet-\(UUID().uuidString)"
            let tablet = makeClient(stack.gatewayURL, deviceId: tabletDevice)
            try await tablet.login(with: .google(idToken: try await stack.googleToken(sub: signedIn.sub)))

            let sessions = try await signedIn.client.sessions()
            #expect(Set(sessions.map(\.deviceId)) == [phone, tabletDevice])
            #expect(sessions.filter(\.current).map(\.deviceId) == [phone])
            let other = try #require(sessions.first { !$0.current })
            try await signedIn.client.endSession(other.sessionId)
            #expect(try await signedIn.client.sessions().map(\.deviceId) == [phone])
            await #expect(throws: APIError.self) { try await tablet.refresh() }
        }
    }

    @Test("deleteAccount deletes the member and signs out; the same identity then makes a new member")
    func deleteAccount() async throws {
        try await withSignedInClient { stack, signedIn in
            let states = await signedIn.client.authStates()

            try await signedIn.client.deleteAccount()
            #expect(await signedIn.store.loadTokens() == nil)
            #expect(await collect(states, count: 2) == [.signedIn(memberId: signedIn.memberId), .signedOut(.accountDeleted)])
            let again = try await signedIn.client.login(with: .google(idToken: try await stack.googleToken(sub: signedIn.sub)))
            #expect(again.isNewMember)
            #expect(again.memberId != signedIn.memberId)
        }
    }

    @Test("link an Apple identity, refuse one in use, unlink it, refuse to unlink the last")
    func links() async throws {
        try await withSignedInClient { stack, signedIn in
            let appleSub = RunningStack.uniqueSubject()
            let nonce = Nonce.random()
            let member = try await signedIn.client.linkIdentity(
                .apple(identityToken: try await stack.appleToken(sub: appleSub, nonce: nonce.sha256), rawNonce: nonce.raw))
            #expect(Set(member.identities.map(\.provider)) == [.google, .apple])

            // The same Apple identity cannot be linked to another member.
            let other = try await SignedInClient.make(stack)
            defer { other.proxy.stop() }
            let otherNonce = Nonce.random()
            let inUse = await #expect(throws: APIError.self) {
                try await other.client.linkIdentity(.apple(identityToken: try await stack.appleToken(sub: appleSub, nonce: otherNonce.sha256),
                                                           rawNonce: otherNonce.raw))
            }
            #expect(inUse?.code == .identityInUse)
            #expect(inUse?.status == 409)

            try await signedIn.client.unlinkIdentity(.apple)
            #expect(try await signedIn.client.me().identities.map(\.provider) == [.google])
            let last = await #expect(throws: APIError.self) { try await signedIn.client.unlinkIdentity(.google) }
            #expect(last?.code == .lastIdentity)
        }
    }
}
