import Foundation

/// The default `DeviceIdentifierProvider`: a random UUID made on first use and kept in the
/// token store, so it survives sign-outs and (with the Keychain store) app updates.
public actor StoredDeviceIdentifier: DeviceIdentifierProvider {
    private let store: any TokenStore
    /// The one load-or-create, shared by concurrent first calls so they cannot store two identifiers.
    private var loading: Task<String, any Error>?

    /// Keeps the identifier in `store`.
    public init(store: any TokenStore) {
        self.store = store
    }

    public func deviceIdentifier() async throws -> String {
        if let loading { return try await loading.value }
        let store = store
        let task = Task {
            if let stored = try await store.loadDeviceIdentifier(), !stored.isEmpty { return stored }
            let identifier = UUID().uuidString.lowercased()
            try await store.saveDeviceIdentifier(identifier)
            return identifier
        }
        loading = task
        do {
            return try await task.value
        } catch {
            // A failed read or write is tried again on the next call.
            loading = nil
            throw error
        }
    }
}
