#if canImport(Security)
import Foundation
import Security

/// A `TokenStore` in the Keychain (Apple platforms only): one generic-password item for the
/// tokens and one for the device identifier, readable after the first unlock (so a background
/// refresh works) and never synced or restored to another device.
public actor KeychainTokenStore: TokenStore {
    /// The items' `kSecAttrService`.
    public let service: String
    /// The Keychain access group to share the items with an app extension, if any.
    public let accessGroup: String?

    private static let tokensAccount = "tokens"
    private static let deviceAccount = "device-identifier"

    /// Creates a store; `service` names the items (use your bundle identifier), `accessGroup`
    /// shares them with extensions of the same team.
    public init(service: String, accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    public func loadTokens() throws -> StoredTokens? {
        guard let data = try read(Self.tokensAccount) else { return nil }
        // An item this version cannot read is treated as no session rather than a crash loop.
        return try? JSONDecoder().decode(StoredTokens.self, from: data)
    }

    public func saveTokens(_ tokens: StoredTokens) throws {
        try write(JSONEncoder().encode(tokens), Self.tokensAccount)
    }

    public func clearTokens() throws {
        try delete(Self.tokensAccount)
    }

    public func loadDeviceIdentifier() throws -> String? {
        try read(Self.deviceAccount).map { String(decoding: $0, as: UTF8.self) }
    }

    public func saveDeviceIdentifier(_ identifier: String) throws {
        try write(Data(identifier.utf8), Self.deviceAccount)
    }

    private func itemQuery(_ account: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    private func read(_ account: String) throws -> Data? {
        var query = itemQuery(account)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess: return result as? Data
        case errSecItemNotFound: return nil
        default: throw KeychainError(status: status)
        }
    }

    private func write(_ data: Data, _ account: String) throws {
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        var status = SecItemUpdate(itemQuery(account) as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            let item = itemQuery(account).merging(attributes) { _, new in new }
            status = SecItemAdd(item as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw KeychainError(status: status) }
    }

    private func delete(_ account: String) throws {
        let status = SecItemDelete(itemQuery(account) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }
}
#endif
