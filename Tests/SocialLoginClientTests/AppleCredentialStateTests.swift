import Foundation
import SocialLoginClient
import Testing
import TestSupport

/// Sign in with Apple's credential state, checked through a stand-in for `AuthenticationServices`.
@Suite("Apple credential state")
struct AppleCredentialStateTests {
    private struct States: AppleCredentialStates {
        let answer: Result<AppleCredentialState, TransportError>
        func credentialState(forUserID userID: String) async throws -> AppleCredentialState {
            #expect(userID == "001234.apple-user")
            return try answer.get()
        }
    }

    @Test("authorized and transferred change nothing; a failed check throws and changes nothing", arguments: [
        AppleCredentialState.authorized, .transferred,
    ])
    func keepsSession(state: AppleCredentialState) async throws {
        try await withSignedInClient { (_, signedIn) async throws in
            #expect(try await signedIn.client.checkAppleCredential(userID: "001234.apple-user", using: States(answer: .success(state))) == state)
            await #expect(throws: TransportError.self) {
                try await signedIn.client.checkAppleCredential(userID: "001234.apple-user",
                                                               using: States(answer: .failure(.network(URLError(.notConnectedToInternet)))))
            }
            #expect(try await signedIn.client.currentMemberId() == signedIn.memberId)
            #expect(signedIn.proxy.count("POST /api/auth/logout") == 0)
        }
    }

    @Test("revoked or not found ends the session on the server and signs out with appleCredentialRevoked", arguments: [
        AppleCredentialState.revoked, .notFound,
    ])
    func signsOut(state: AppleCredentialState) async throws {
        try await withSignedInClient { stack, signedIn in
            let refreshToken = try #require(await signedIn.store.loadTokens()).refreshToken
            let events = await signedIn.client.authEvents()

            #expect(try await signedIn.client.checkAppleCredential(userID: "001234.apple-user", using: States(answer: .success(state))) == state)
            #expect(try await signedIn.client.currentMemberId() == nil)
            #expect(await signedIn.store.loadTokens() == nil)
            #expect(signedIn.proxy.count("POST /api/auth/logout") == 1)
            #expect(try await stack.post("/api/auth/refresh", json: ["refreshToken": refreshToken]).status == 401, "the server's session ended")
            #expect(await collect(events, count: 1) == [.signedOut(.appleCredentialRevoked)])

            // The revocation notification when nobody is signed in does nothing.
            await signedIn.client.appleCredentialRevoked()
            #expect(signedIn.proxy.count("POST /api/auth/logout") == 1)
        }
    }
}
