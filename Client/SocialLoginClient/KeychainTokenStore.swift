import Foundation

/// A `TokenStore` in the Keychain: one generic-password item for the tokens and one for the device
/// identifier, readable after the first unlock (so a background refresh works) and never synced or
/// restored to another device. On macOS the items go to the data-protection keychain, where the
/// access group applies, not the legacy file keychain.
///
/// A locked device (`errSecInteractionNotAllowed`) is a `KeychainError` whose `isTransient` is true:
/// the client keeps the user signed in and writes the tokens again later.
public actor KeychainTokenStore: TokenStore {
    /// The items' `kSecAttrService`.
    public let service: String
    /// The Keychain access group to share the items with an app extension, if any.
    public let accessGroup: String?
    private let items: any KeychainItems

    private static let tokensAccount = "tokens"
    private static let deviceAccount = "device-identifier"

    /// Creates a store over `items`; `service` names the items (use your bundle identifier), `accessGroup`
    /// shares them with extensions of the same team.
    public init(service: String, accessGroup: String? = nil, items: any KeychainItems) {
        self.service = service
        self.accessGroup = accessGroup
        self.items = items
    }

    #if canImport(Security)
    /// Creates a store in the system Keychain.
    public init(service: String, accessGroup: String? = nil) {
        self.init(service: service, accessGroup: accessGroup, items: SystemKeychain())
    }
    #endif

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

    private func item(_ account: String) -> KeychainItem {
        KeychainItem(service: service, account: account, accessGroup: accessGroup)
    }

    private func read(_ account: String) throws -> Data? {
        let (status, data) = items.copy(item(account))
        switch status {
        case .success: return data
        case .itemNotFound: return nil
        default: throw KeychainError(status: status)
        }
    }

    /// Updates the item, or adds it when there is none. Another process sharing the access group may add
    /// it between the two calls (`errSecDuplicateItem`): then it is updated after all.
    private func write(_ data: Data, _ account: String) throws {
        let item = item(account)
        var status = items.update(item, data: data)
        if status == .itemNotFound {
            status = items.add(item, data: data)
            if status == .duplicateItem { status = items.update(item, data: data) }
        }
        guard status == .success else { throw KeychainError(status: status) }
    }

    private func delete(_ account: String) throws {
        let status = items.delete(item(account))
        guard status == .success || status == .itemNotFound else { throw KeychainError(status: status) }
    }
}
