import Runtime
import Synchronization

/// The refresh token keys this replica holds: those of `REFRESH_TOKEN_KEY_FILE`, read at start and again at each
/// ``reload()`` (every signing key reload interval), so a key added to the files, or to a Secret's directory,
/// and a change of which one is last, are taken without a restart (docs/key-rotation.md); or the one kept in the
/// database, when no files are set. A key leaves only at a restart: a reload that lacks one it holds (a file
/// deleted or rewritten by mistake would sign out every app whose token is of that key) takes the files' keys,
/// the last signing, and keeps the missing one for checking tokens, first, until the replica restarts.
final class RefreshTokenKeyring: RefreshTokenKeyProvider {
    private let files: [String]?
    private let held: Mutex<RefreshTokenKeys>

    init(files: [String]?, keys: RefreshTokenKeys) {
        self.files = files
        held = Mutex(keys)
    }

    /// The keys now.
    var current: RefreshTokenKeys { held.withLock { $0 } }

    /// Reads the files again; the keys held and the number the files lack when they changed, nil when not (or when
    /// there are no files). A read that fails keeps the keys held and throws, naming the file.
    func reload() throws(ConfigurationError) -> (held: Int, kept: Int)? {
        guard let files else { return nil }
        let read = try RefreshTokenKeys.readKeyFiles(files)
        return held.withLock { held in
            let keys = read.keeping(held)
            guard held != keys else { return nil }
            held = keys
            return (keys.count, keys.count - read.count)
        }
    }
}
