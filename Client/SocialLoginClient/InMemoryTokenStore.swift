/// A `TokenStore` that keeps everything in memory: for tests, previews, and apps that want the
/// user signed out on every launch.
public actor InMemoryTokenStore: TokenStore {
    private var tokens: StoredTokens?
    private var deviceIdentifier: String?

    /// Creates a store, optionally already holding tokens and a device identifier.
    public init(tokens: StoredTokens? = nil, deviceIdentifier: String? = nil) {
        self.tokens = tokens
        self.deviceIdentifier = deviceIdentifier
    }

    public func loadTokens() -> StoredTokens? { tokens }

    public func saveTokens(_ tokens: StoredTokens) { self.tokens = tokens }

    public func clearTokens() { tokens = nil }

    public func loadDeviceIdentifier() -> String? { deviceIdentifier }

    public func saveDeviceIdentifier(_ identifier: String) { deviceIdentifier = identifier }
}
