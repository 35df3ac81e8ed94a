import Foundation
import SocialLoginClient
import Testing
import TestSupport

/// An app and its extension: two clients on one token store, and the events they report.
@Suite("Clients sharing a store, and auth events")
struct SharedStoreTests {
    @Test("two clients on one store each refresh; neither is signed out and the second adopts the first's tokens")
    func twoProcesses() async throws {
        try await withSignedInClient { _, signedIn in
            let app = signedIn.client
            let fileProvider = makeClient(signedIn.proxy.url, store: signedIn.store)
            // Both have read the store.
            #expect(try await app.me().memberId == signedIn.memberId)
            #expect(try await fileProvider.me().memberId == signedIn.memberId)
            let events = await fileProvider.authEvents()

            try await app.refresh()
            try await app.refresh()
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 2)
            // The extension still holds the first tokens; it reads the store before refreshing and takes the app's.
            try await fileProvider.refresh()
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 2, "no refresh with a rotated token")
            #expect(try await fileProvider.me().memberId == signedIn.memberId)
            #expect(try await app.me().memberId == signedIn.memberId)
            // The extension rotates; the app, behind now, adopts that instead of refreshing; then it rotates.
            try await fileProvider.refresh()
            try await app.refresh()
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 3)
            try await app.refresh()
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 4)
            #expect(try await app.currentMemberId() == signedIn.memberId)
            #expect(try await fileProvider.currentMemberId() == signedIn.memberId)
            #expect(await collect(events, count: 2) == [.tokensRefreshed(memberId: signedIn.memberId),
                                                              .tokensRefreshed(memberId: signedIn.memberId)])

            // The app signs out: the extension's next refresh finds the store empty and signs out too, sending nothing.
            try await app.logout()
            await #expect(throws: ClientError.notSignedIn) { try await fileProvider.refresh() }
            #expect(signedIn.proxy.count("POST /api/auth/refresh") == 4)
            #expect(await collect(events, count: 1) == [.signedOut(.signedOutElsewhere)])
        }
    }

    @Test("events: signed in, tokens refreshed, signed out with its reason")
    func events() async throws {
        let stack = try await TestStack.shared.running()
        let client = makeClient(stack.gatewayURL)
        let events = await client.authEvents()
        let login = try await client.login(with: .google(idToken: try await stack.googleToken(sub: RunningStack.uniqueSubject())))
        try await client.refresh()
        try await client.logout()
        #expect(await collect(events, count: 3) == [.signedIn(memberId: login.memberId), .tokensRefreshed(memberId: login.memberId),
                                                          .signedOut(.loggedOut)])
    }
}
