import Foundation
import SocialLoginClient
import Testing
import TestSupport

/// `KeychainTokenStore`'s logic against a Keychain stand-in that answers the real status codes.
@Suite("Keychain token store")
struct KeychainTokenStoreTests {
    private let tokensItem = KeychainItem(service: "com.example.app", account: "tokens", accessGroup: "TEAM.shared")
    private let tokens = StoredTokens(accessToken: "a", refreshToken: "r", expiresAt: Date(timeIntervalSince1970: 2_000_000_000), memberId: 7)

    private func store(_ keychain: FakeKeychain) -> KeychainTokenStore {
        KeychainTokenStore(service: "com.example.app", accessGroup: "TEAM.shared", items: keychain)
    }

    @Test("a missing item is no session; a write adds it (update, then add) and reads back; a delete of a missing item is fine")
    func addAndRead() async throws {
        let keychain = FakeKeychain()
        let store = store(keychain)
        #expect(try await store.loadTokens() == nil)
        try await store.saveTokens(tokens)
        #expect(keychain.calls == ["copy", "update", "add"])
        #expect(try await store.loadTokens() == tokens)
        try await store.saveTokens(tokens)
        #expect(keychain.calls.suffix(1) == ["update"], "an existing item is updated")
        try await store.clearTokens()
        try await store.clearTokens()
        #expect(try await store.loadTokens() == nil)
    }

    @Test("errSecDuplicateItem from a writer that added the item first: updated after all, our tokens kept")
    func concurrentWriter() async throws {
        let keychain = FakeKeychain()
        let store = store(keychain)
        keychain.anotherWriterAdds(Data("theirs".utf8), to: tokensItem)
        try await store.saveTokens(tokens)
        #expect(keychain.calls == ["update", "add", "update"])
        #expect(try await store.loadTokens() == tokens)
    }

    @Test("errSecInteractionNotAllowed (locked) is a transient KeychainError for reads and writes")
    func locked() async throws {
        let keychain = FakeKeychain()
        let store = store(keychain)
        try await store.saveTokens(tokens)
        keychain.setLocked(true)
        await #expect(throws: KeychainError(status: .interactionNotAllowed)) { try await store.loadTokens() }
        await #expect(throws: KeychainError(status: .interactionNotAllowed)) { try await store.saveTokens(tokens) }
        #expect(KeychainError(status: .interactionNotAllowed).isTransient)
        keychain.setLocked(false)
        #expect(try await store.loadTokens() == tokens)
    }

    @Test("any other status is a KeychainError carrying it, not transient")
    func otherStatus() async throws {
        let keychain = FakeKeychain()
        let store = store(keychain)
        let missingEntitlement = KeychainStatus(rawValue: -34018)
        keychain.queue(missingEntitlement, for: "copy")
        await #expect(throws: KeychainError(status: missingEntitlement)) { try await store.loadTokens() }
        keychain.queue(missingEntitlement, for: "add")
        await #expect(throws: KeychainError(status: missingEntitlement)) { try await store.saveTokens(tokens) }
        keychain.queue(missingEntitlement, for: "delete")
        await #expect(throws: KeychainError(status: missingEntitlement)) { try await store.clearTokens() }
        #expect(!KeychainError(status: missingEntitlement).isTransient)
    }

    @Test("a refresh while the device is locked rotates nothing and keeps the user signed in")
    func refreshWhileLocked() async throws {
        let stack = try await TestStack.shared.running()
        let keychain = FakeKeychain()
        let login = try await makeClient(stack.gatewayURL, store: store(keychain))
            .login(with: .google(idToken: try await stack.googleToken(sub: RunningStack.uniqueSubject())))
        let proxy = try GatewayProxy.start(forwardingTo: stack.gatewayURL)
        defer { proxy.stop() }
        let client = makeClient(proxy.url, store: store(keychain))
        #expect(try await client.me().memberId == login.memberId)

        // Rotating now would keep the new tokens only in memory, lost if the process is killed before the unlock.
        keychain.setLocked(true)
        await #expect(throws: KeychainError(status: .interactionNotAllowed)) { try await client.refresh() }
        #expect(proxy.count("POST /api/auth/refresh") == 0)
        #expect(try await client.currentMemberId() == login.memberId)
        #expect(try await client.me().memberId == login.memberId, "the access token is still good")
        keychain.setLocked(false)
        try await client.refresh()
        #expect(proxy.count("POST /api/auth/refresh") == 1)
    }

    @Test("tokens a refresh could not write (locked between read and write) stay in use and are written at the next call")
    func writeAfterRefreshFails() async throws {
        let stack = try await TestStack.shared.running()
        let keychain = FakeKeychain()
        let client = makeClient(stack.gatewayURL, store: store(keychain))
        let login = try await client.login(with: .google(idToken: try await stack.googleToken(sub: RunningStack.uniqueSubject())))
        let before = try #require(await store(keychain).loadTokens())

        keychain.queue(.interactionNotAllowed, for: "update")
        try await client.refresh()
        #expect(try await store(keychain).loadTokens() == before, "the write failed")
        #expect(try await client.me().memberId == login.memberId)
        let after = try #require(await store(keychain).loadTokens())
        #expect(after.refreshToken != before.refreshToken, "written at the next call")
        // The stored token is the live one: a relaunched client refreshes with it.
        let relaunched = makeClient(stack.gatewayURL, store: store(keychain))
        try await relaunched.refresh()
        #expect(try await relaunched.currentMemberId() == login.memberId)
    }

    @Test("a launch on a locked device is a transient error, not a sign-out; the state comes once the store is read")
    func launchLocked() async throws {
        let stack = try await TestStack.shared.running()
        let keychain = FakeKeychain()
        let login = try await makeClient(stack.gatewayURL, store: store(keychain))
            .login(with: .google(idToken: try await stack.googleToken(sub: RunningStack.uniqueSubject())))
        keychain.setLocked(true)
        let client = makeClient(stack.gatewayURL, store: store(keychain))
        let states = await client.authStates()
        do {
            _ = try await client.me()
            Issue.record("read a locked keychain")
        } catch let error as KeychainError {
            #expect(error.isTransient)
        }
        keychain.setLocked(false)
        #expect(try await client.me().memberId == login.memberId)
        #expect(await collect(states, count: 1, timeout: .seconds(2)) == [.signedIn(memberId: login.memberId)],
                "no signed-out state while the store could not be read")
    }
}
