#if canImport(Security)
import Foundation
import Security

/// The system Keychain's `SecItem*` calls, for `KeychainTokenStore`. Items use the data-protection
/// keychain (so the access group applies on macOS too) and are readable after the first unlock,
/// on this device only.
public struct SystemKeychain: KeychainItems {
    /// The system Keychain.
    public init() {}

    public func copy(_ item: KeychainItem) -> (KeychainStatus, Data?) {
        var query = Self.query(item)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (KeychainStatus(rawValue: status), result as? Data)
    }

    public func add(_ item: KeychainItem, data: Data) -> KeychainStatus {
        var query = Self.query(item)
        query[kSecValueData as String] = data
        query[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        return KeychainStatus(rawValue: SecItemAdd(query as CFDictionary, nil))
    }

    public func update(_ item: KeychainItem, data: Data) -> KeychainStatus {
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        return KeychainStatus(rawValue: SecItemUpdate(Self.query(item) as CFDictionary, attributes as CFDictionary))
    }

    public func delete(_ item: KeychainItem) -> KeychainStatus {
        KeychainStatus(rawValue: SecItemDelete(Self.query(item) as CFDictionary))
    }

    private static func query(_ item: KeychainItem) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: item.service,
            kSecAttrAccount as String: item.account,
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let accessGroup = item.accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }
}
#endif
