import Runtime
import Synchronization

/// The refresh token keys this replica holds: those of `REFRESH_TOKEN_KEY_FILE`, read at start and again at each
/// ``reload()`` (every signing key reload interval), so a key added to the files, or to a Secret's directory,
/// and a change of which one is last, are taken without a restart (docs/key-rotation.md); or the one kept in the
/// database, when no files are set. A key leaves only at a restart: a reload that lacks one it holds (a file
/// deleted or rewritten by mistake would sign out every app whose token is of that key) keeps the keys held.
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
    /// A read that fails, or that lacks a key held, keeps the keys held and throws, naming the variable.
    func reload() throws(ConfigurationError) -> Int? {
        guard let files else { return nil }
        let keys = try RefreshTokenKeys.readKeyFiles(files)
        let outcome: Result<Int?, ConfigurationError> = held.withLock { held in
            guard held != keys else { return .success(nil) }
            guard keys.includes(held) else {
                return .failure(ConfigurationError(variable: "REFRESH_TOKEN_KEY_FILE", problem:
                    "a key held is no longer in the files: kept until a restart (tokens of a key removed stop working then)"))
            }
            held = keys
            return .success(keys.count)
        }
        return try outcome.get()
    }
}
