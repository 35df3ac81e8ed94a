import Crypto
import Foundation
import Logging
import Synchronization

/// `ADMIN_TOKENS_FILE`, followed: read at start (a bad file stops the service), then read again every
/// `interval` (a few lines; the path is opened anew each time, through any symbolic link, so a Kubernetes
/// Secret, whose `..data` link the kubelet swaps, and a file replaced by rename are both seen) and taken
/// when its contents changed. It fails closed: a file that becomes unreadable, missing or bad leaves no
/// admin at all until it is mended (deleting the file revokes every token), and says so in the log once
/// per version (naming the line, never its text).
final class AdminTokensFile: Sendable {
    /// The largest file read: a tokens file is a few lines.
    static let maxSize = 1_048_576

    let path: String
    private let logger: Logger
    /// The admins in force, and the SHA-256 of the contents they were read from (nil: the file could not be read).
    private let state: Mutex<(tokens: AdminTokens, contents: [UInt8]?)>

    /// Reads the file at `path`; throws what is wrong (a line number, never the line).
    init(path: String, logger: Logger) throws {
        self.path = path
        self.logger = logger
        let contents = try Self.contents(path)
        state = Mutex((try AdminTokens(parsing: contents.text), contents.digest))
    }

    /// The admins in force.
    var tokens: AdminTokens {
        state.withLock { $0.tokens }
    }

    /// Reads the file again; takes it when its contents changed. When it cannot be read or used, no admin
    /// stays (reported once for each version of the file).
    func reload() {
        let digest: [UInt8]?
        let parsed: Result<AdminTokens, any Error>
        do {
            let contents = try Self.contents(path)
            digest = contents.digest
            guard digest != state.withLock({ $0.contents }) else { return }
            parsed = Result { try AdminTokens(parsing: contents.text) }
        } catch {
            digest = nil
            guard state.withLock({ $0.contents }) != nil else { return }
            parsed = .failure(error)
        }
        switch parsed {
        case .success(let tokens):
            state.withLock { $0 = (tokens, digest) }
            logger.info("admin tokens file read again", ["admins": String(tokens.count)])
        case .failure(let error):
            state.withLock { $0 = (AdminTokens(), digest) }
            logger.error("admin tokens file not usable: no admin is let in until it is mended", ["error": String(describing: error)])
        }
    }

    /// The file's text and its SHA-256.
    private static func contents(_ path: String) throws -> (text: String, digest: [UInt8]) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AdminTokensFileError("cannot be read")
        }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: maxSize + 1) ?? Data()
        guard data.count <= maxSize else { throw AdminTokensFileError("is larger than 1 MiB") }
        guard let text = String(data: data, encoding: .utf8) else { throw AdminTokensFileError("is not UTF-8 text") }
        return (text, Digest.sha256(data))
    }
}

/// A tokens file that cannot be read at all.
struct AdminTokensFileError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
