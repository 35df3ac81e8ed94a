import Runtime
import Synchronization

/// The refresh token keys this replica holds: those of `REFRESH_TOKEN_KEY_FILE`, read at start and again at each
/// ``reload()`` (every signing key reload interval), so a key added to the files, or to a Secret's directory,
/// is taken without a restart (docs/key-rotation.md); or the one kept in the database, when no files are set.
final class RefreshTokenKeyring: RefreshTokenKeyProvider {
    private let files: [String]?
    private let held: Mutex<RefreshTokenKeys>

    init(files: [String]?, keys: RefreshTokenKeys) {
        self.files = files
        held = Mutex(keys)
    }

    /// The keys now.
    var current: RefreshTokenKeys { held.withLock { $0 } }

    /// Reads the files again; the number of keys when they changed, nil when not (or when there are no files).
    /// A read that fails keeps the keys held and throws, naming the file.
    func reload() throws(ConfigurationError) -> Int? {
        guard let files else { return nil }
        let keys = try RefreshTokenKeys.readKeyFiles(files)
        return held.withLock { held in
            guard held != keys else { return nil }
            held = keys
            return keys.count
        }
    }
}
