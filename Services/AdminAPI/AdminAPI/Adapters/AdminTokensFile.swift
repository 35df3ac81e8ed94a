import Foundation
import Logging
import Synchronization

/// `ADMIN_TOKENS_FILE`, followed: read at start (a bad file stops the service), then looked at every
/// `interval` and read again when its size, modification time or inode changed (a Kubernetes Secret is
/// replaced by a new file). A file that becomes unreadable or bad keeps the admins read last, and says so
/// in the log (naming the line, never its text).
final class AdminTokensFile: Sendable {
    /// The largest file read: a tokens file is a few lines.
    static let maxSize = 1_048_576

    let path: String
    private let logger: Logger
    private let state: Mutex<(tokens: AdminTokens, stamp: Stamp?)>

    /// What says that the file changed.
    struct Stamp: Equatable {
        let size: Int
        let modified: Date
        let inode: Int
    }

    /// Reads the file at `path`; throws what is wrong (a line number, never the line).
    init(path: String, logger: Logger) throws {
        self.path = path
        self.logger = logger
        let (tokens, stamp) = try Self.read(path)
        state = Mutex((tokens, stamp))
    }

    /// The admins read last.
    var tokens: AdminTokens {
        state.withLock { $0.tokens }
    }

    /// Reads the file again when it changed; keeps the admins read last when it cannot be used.
    func reloadIfChanged() {
        let stamp = Self.stamp(path)
        guard stamp != state.withLock({ $0.stamp }) else { return }
        do {
            let (tokens, readStamp) = try Self.read(path)
            state.withLock { $0 = (tokens, readStamp) }
            logger.info("admin tokens file read again", ["admins": String(tokens.count)])
        } catch {
            // Remember the stamp, so that one bad version is reported once, not every few seconds.
            state.withLock { $0.stamp = stamp }
            logger.error("admin tokens file not usable; the admins read before stay", ["error": String(describing: error)])
        }
    }

    private static func read(_ path: String) throws -> (AdminTokens, Stamp?) {
        let stamp = stamp(path)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AdminTokensFileError("cannot be read")
        }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: maxSize + 1) ?? Data()
        guard data.count <= maxSize else { throw AdminTokensFileError("is larger than 1 MiB") }
        guard let text = String(data: data, encoding: .utf8) else { throw AdminTokensFileError("is not UTF-8 text") }
        return (try AdminTokens(parsing: text), stamp)
    }

    private static func stamp(_ path: String) -> Stamp? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return Stamp(size: (attributes[.size] as? NSNumber)?.intValue ?? -1,
                     modified: attributes[.modificationDate] as? Date ?? .distantPast,
                     inode: (attributes[.systemFileNumber] as? NSNumber)?.intValue ?? -1)
    }
}

/// A tokens file that cannot be read at all.
struct AdminTokensFileError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
