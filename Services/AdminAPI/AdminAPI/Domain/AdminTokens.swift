import Contracts
import Crypto
import Foundation

/// The admins of `ADMIN_TOKENS_FILE`: one token a line, `name:sha256-hex-of-token`; blank lines and lines
/// starting with `#` are ignored. A name may have several lines (a new token beside the old while it is
/// rotated: add the new line, hand the token over, delete the old line). Only the tokens' SHA-256 is held, and a presented token is compared
/// with every entry in constant time, so neither the file nor the time an answer takes tells a token.
public struct AdminTokens: Sendable, Equatable {
    /// One admin: its name and its token's SHA-256.
    struct Entry: Sendable, Equatable {
        let name: String
        let hash: [UInt8]
    }

    let entries: [Entry]

    /// How many admins there are.
    public var count: Int { entries.count }

    /// The admins of a tokens file's text, or the first bad line (by number, never quoting it: it may hold a hash).
    public init(parsing text: String) throws(AdminTokensError) {
        var entries: [Entry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let number = index + 1
            guard let colon = line.lastIndex(of: ":") else {
                throw AdminTokensError(line: number, problem: "is not name:sha256-hex-of-token")
            }
            let name = String(line[..<colon])
            guard Self.isValidName(name) else {
                throw AdminTokensError(line: number, problem: "names no admin: a name is 1 to \(FieldLimits.adminName) letters, digits, '.', '_', '@' or '-'")
            }
            let hex = line[line.index(after: colon)...]
            guard hex.utf8.count == 64, let hash = Hex.decode(hex.lowercased()), hash.count == 32 else {
                throw AdminTokensError(line: number, problem: "does not end in the token's SHA-256, 64 hexadecimal digits")
            }
            entries.append(Entry(name: name, hash: hash))
        }
        self.entries = entries
    }

    /// No admin at all.
    public init() {
        entries = []
    }

    /// The admin whose token `token` is, or nil. Every entry is compared, whichever matches.
    public func admin(presenting token: String) -> String? {
        let hash = Digest.sha256(token)
        var found: String?
        for entry in entries where constantTimeEquals(entry.hash, hash) && found == nil {
            found = entry.name
        }
        return found
    }

    /// Whether `name` may name an admin: it is written into the audit trail and the logs as it is.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= FieldLimits.adminName && name.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "@", "-": true
            default: false
            }
        }
    }
}

/// A tokens file that cannot be used: which line, and what is wrong with it (never its text).
public struct AdminTokensError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line's number, from 1.
    public let line: Int
    /// What is wrong.
    public let problem: String

    public var description: String { "line \(line) \(problem)" }
}
