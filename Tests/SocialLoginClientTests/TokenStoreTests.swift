import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SocialLoginClient
import Testing

/// The in-memory store and the stored device identifier (the Keychain store has the same
/// contract; it compiles only where Security exists).
@Suite("Token store and device identifier")
struct TokenStoreTests {
    private let tokens = StoredTokens(accessToken: "a", refreshToken: "r", expiresAt: Date(timeIntervalSince1970: 1_800_000_000), memberId: 7)

    @Test("tokens round-trip; clearing them keeps the device identifier")
    func inMemory() async throws {
        let store = InMemoryTokenStore()
        #expect(await store.loadTokens() == nil)
        await store.saveTokens(tokens)
        await store.saveDeviceIdentifier("device")
        #expect(await store.loadTokens() == tokens)
        await store.clearTokens()
        #expect(await store.loadTokens() == nil)
        #expect(await store.loadDeviceIdentifier() == "device")
    }

    @Test("stored tokens survive encoding, as the Keychain store keeps them")
    func codable() throws {
        let decoded = try JSONDecoder().decode(StoredTokens.self, from: JSONEncoder().encode(tokens))
        #expect(decoded == tokens)
    }

    @Test("the device identifier is made once, even by concurrent first calls, and kept in the store")
    func deviceIdentifierOnce() async throws {
        let store = InMemoryTokenStore()
        let provider = StoredDeviceIdentifier(store: store)
        let identifiers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await provider.deviceIdentifier() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(identifiers.count == 1)
        #expect(await store.loadDeviceIdentifier() == identifiers.first)
        // A new provider on the same store (an app restart) finds it.
        #expect(try await StoredDeviceIdentifier(store: store).deviceIdentifier() == identifiers.first)
        #expect(try await StoredDeviceIdentifier(store: InMemoryTokenStore()).deviceIdentifier() != identifiers.first)
    }
}
