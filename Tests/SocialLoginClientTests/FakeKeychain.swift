import Foundation
import SocialLoginClient
import Synchronization

/// A Keychain stand-in that answers as the real one does: `errSecItemNotFound` for a missing item,
/// `errSecDuplicateItem` for one added twice, `errSecInteractionNotAllowed` for everything while
/// "locked", and any status a test queues for a call.
final class FakeKeychain: KeychainItems {
    private struct State {
        var items: [KeychainItem: Data] = [:]
        var locked = false
        var queued: [String: [KeychainStatus]] = [:]
        var beforeNextAdd: (@Sendable (inout [KeychainItem: Data]) -> Void)?
        var calls: [String] = []
    }

    private let state = Mutex(State())

    /// Every call so far, by name (`copy`, `add`, `update`, `delete`).
    var calls: [String] { state.withLock { $0.calls } }

    /// Locks or unlocks the device.
    func setLocked(_ locked: Bool) {
        state.withLock { $0.locked = locked }
    }

    /// The next `call` answers `status` and does nothing.
    func queue(_ status: KeychainStatus, for call: String) {
        state.withLock { $0.queued[call, default: []].append(status) }
    }

    /// Another process writes `data` to `item` just before the next add.
    func anotherWriterAdds(_ data: Data, to item: KeychainItem) {
        state.withLock { $0.beforeNextAdd = { $0[item] = data } }
    }

    /// The stored data of `item`.
    func data(_ item: KeychainItem) -> Data? {
        state.withLock { $0.items[item] }
    }

    func copy(_ item: KeychainItem) -> (KeychainStatus, Data?) {
        state.withLock { state in
            if let status = Self.prelude("copy", &state) { return (status, nil) }
            guard let data = state.items[item] else { return (.itemNotFound, nil) }
            return (.success, data)
        }
    }

    func add(_ item: KeychainItem, data: Data) -> KeychainStatus {
        state.withLock { state in
            if let status = Self.prelude("add", &state) { return status }
            if let other = state.beforeNextAdd {
                state.beforeNextAdd = nil
                other(&state.items)
            }
            guard state.items[item] == nil else { return .duplicateItem }
            state.items[item] = data
            return .success
        }
    }

    func update(_ item: KeychainItem, data: Data) -> KeychainStatus {
        state.withLock { state in
            if let status = Self.prelude("update", &state) { return status }
            guard state.items[item] != nil else { return .itemNotFound }
            state.items[item] = data
            return .success
        }
    }

    func delete(_ item: KeychainItem) -> KeychainStatus {
        state.withLock { state in
            if let status = Self.prelude("delete", &state) { return status }
            return state.items.removeValue(forKey: item) == nil ? .itemNotFound : .success
        }
    }

    /// Records the call; a queued status or the lock answers it.
    private static func prelude(_ call: String, _ state: inout State) -> KeychainStatus? {
        state.calls.append(call)
        if var queued = state.queued[call], !queued.isEmpty {
            let status = queued.removeFirst()
            state.queued[call] = queued
            return status
        }
        return state.locked ? .interactionNotAllowed : nil
    }
}
