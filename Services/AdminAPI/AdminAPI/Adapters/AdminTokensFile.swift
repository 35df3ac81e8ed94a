import Logging
import Runtime

/// `ADMIN_TOKENS_FILE`, followed (``FollowedFile``): read at start (a bad file stops the service), then read
/// again every few seconds and taken when its contents changed. It fails closed: a file that becomes
/// unreadable, missing or bad leaves no admin at all until it is mended (deleting the file revokes every
/// token), and says so in the log once per version (naming the line, never its text).
final class AdminTokensFile: Sendable {
    private let file: FollowedFile<AdminTokens>
    private let logger: Logger

    /// Reads the file at `path`; throws what is wrong (a line number, never the line).
    init(path: String, logger: Logger) throws {
        file = try FollowedFile(path: path, onFailure: .replace(with: AdminTokens())) { try AdminTokens(parsing: $0) }
        self.logger = logger
    }

    /// The admins in force.
    var tokens: AdminTokens {
        file.value
    }

    /// Reads the file again; takes it when its contents changed. When it cannot be read or used, no admin
    /// stays (reported once for each version of the file).
    func reload() {
        switch file.reload() {
        case .unchanged:
            break
        case .changed(let tokens):
            logger.info("admin tokens file read again", ["admins": String(tokens.count)])
        case .failed(let error):
            logger.error("admin tokens file not usable: no admin is let in until it is mended", ["error": String(describing: error)])
        }
    }
}
