import Foundation

/// The four Keychain calls `KeychainTokenStore` makes, one generic-password item each, so that its
/// logic runs (and is tested) anywhere against a stand-in that answers the Keychain's status codes.
/// `SystemKeychain` is the real one on Apple platforms.
public protocol KeychainItems: Sendable {
    /// `SecItemCopyMatching`: the item's data.
    func copy(_ item: KeychainItem) -> (KeychainStatus, Data?)
    /// `SecItemAdd`: a new item, readable after the first unlock, on this device only.
    func add(_ item: KeychainItem, data: Data) -> KeychainStatus
    /// `SecItemUpdate`: new data for an existing item.
    func update(_ item: KeychainItem, data: Data) -> KeychainStatus
    /// `SecItemDelete`.
    func delete(_ item: KeychainItem) -> KeychainStatus
}

/// Which generic-password item: `kSecAttrService`, `kSecAttrAccount` and the access group, if any.
public struct KeychainItem: Sendable, Hashable {
    /// `kSecAttrService`.
    public let service: String
    /// `kSecAttrAccount`.
    public let account: String
    /// `kSecAttrAccessGroup`, to share the item with an app extension of the same team.
    public let accessGroup: String?

    /// Names an item.
    public init(service: String, account: String, accessGroup: String?) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }
}

/// An `OSStatus` a Keychain call answered; the ones the store acts on are named.
public struct KeychainStatus: RawRepresentable, Sendable, Hashable {
    /// The `OSStatus`.
    public let rawValue: Int32

    /// Wraps a status.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `errSecSuccess`.
    public static let success = KeychainStatus(rawValue: 0)
    /// `errSecItemNotFound`.
    public static let itemNotFound = KeychainStatus(rawValue: -25300)
    /// `errSecDuplicateItem`: another writer added the item first.
    public static let duplicateItem = KeychainStatus(rawValue: -25299)
    /// `errSecInteractionNotAllowed`: the device is locked (a background task before the first unlock).
    public static let interactionNotAllowed = KeychainStatus(rawValue: -25308)
}
