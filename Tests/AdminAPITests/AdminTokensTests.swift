import Contracts
import Crypto
import Foundation
import Logging
import Testing
@testable import AdminAPI

@Suite("Admin tokens file")
struct AdminTokensTests {
    static let aliceHash = Digest.sha256Hex("alice-token")
    static let bobHash = Digest.sha256Hex("bob-token")

    @Test("one admin a line; blank lines and comments ignored; a token finds its admin, a wrong one none")
    func parsesAndChecks() throws {
        let tokens = try AdminTokens(parsing: """
            # the support team
            alice:\(Self.aliceHash)

              bob.smith@example:\(Self.bobHash.uppercased())\r
            """)
        #expect(tokens.count == 2)
        #expect(tokens.admin(presenting: "alice-token") == "alice")
        #expect(tokens.admin(presenting: "bob-token") == "bob.smith@example")
        #expect(tokens.admin(presenting: "alice-token ") == nil)
        #expect(tokens.admin(presenting: "") == nil)
        #expect(tokens.admin(presenting: Self.aliceHash) == nil)
        #expect(AdminTokens().admin(presenting: "alice-token") == nil)
    }

    @Test("a bad line is named by number, never quoted", arguments: [
        ("alice", 2), ("alice:abc", 2), (":\(aliceHash)", 2), ("al ice:\(aliceHash)", 2), ("alice:\(aliceHash)x", 2),
        ("alice:\(String(repeating: "g", count: 64))", 2),
    ])
    func badLine(_ line: String, _ number: Int) {
        do {
            _ = try AdminTokens(parsing: "alice:\(Self.aliceHash)\n\(line)\n")
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.line == number)
            #expect(!error.description.contains(Self.aliceHash))
            #expect(!error.description.contains(Self.bobHash))
        }
    }

    @Test("names are bounded and plain")
    func names() {
        #expect(AdminTokens.isValidName("ops-1_a.b@c"))
        #expect(!AdminTokens.isValidName(""))
        #expect(!AdminTokens.isValidName(String(repeating: "a", count: FieldLimits.adminName + 1)))
        #expect(!AdminTokens.isValidName("a\nb"))
    }

    @Test("an admin may hold two tokens while one is rotated: both let them in, under their name")
    func rotation() throws {
        let tokens = try AdminTokens(parsing: "alice:\(Self.aliceHash)\nalice:\(Self.bobHash)\n")
        #expect(tokens.admin(presenting: "alice-token") == "alice")
        #expect(tokens.admin(presenting: "bob-token") == "alice")
    }
}

/// The tokens file followed while the admin-api runs: as Kubernetes updates a mounted Secret (a `..data` link
/// swapped to a new folder), as an editor writes in place, and removed; it fails closed.
@Suite("Admin tokens file, followed")
struct AdminTokensFileTests {
    private static let logger = Logger(label: "admin-tokens-test", level: .critical)

    /// A folder laid out as a Secret mounted as a directory: `tokens` → `..data/tokens`, `..data` → `<version>`.
    private func secretFolder(_ text: String) throws -> (folder: URL, file: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("admin-tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("v1"), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: folder.appendingPathComponent("v1/tokens"))
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("..data").path, withDestinationPath: "v1")
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("tokens").path, withDestinationPath: "..data/tokens")
        return (folder, folder.appendingPathComponent("tokens").path)
    }

    @Test("a Secret's ..data link swapped to a new version is read: the removed admin is out, the added one in")
    func secretSwap() throws {
        let (folder, path) = try secretFolder("alice:\(AdminTokensTests.aliceHash)\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try AdminTokensFile(path: path, logger: Self.logger)
        #expect(file.tokens.admin(presenting: "alice-token") == "alice")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("v2"), withIntermediateDirectories: true)
        try Data("bob:\(AdminTokensTests.bobHash)\n".utf8).write(to: folder.appendingPathComponent("v2/tokens"))
        // The kubelet's swap: a new link renamed over the old one.
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("..data_tmp").path, withDestinationPath: "v2")
        #expect(rename(folder.appendingPathComponent("..data_tmp").path, folder.appendingPathComponent("..data").path) == 0)
        file.reload()
        #expect(file.tokens.admin(presenting: "alice-token") == nil, "the removed admin is refused")
        #expect(file.tokens.admin(presenting: "bob-token") == "bob")
    }

    @Test("a file edited in place is read again; a bad version or a deleted file leaves no admin (fail closed); mended, it lets them in")
    func editsAndFailsClosed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("admin-tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("admin-tokens").path
        try Data("alice:\(AdminTokensTests.aliceHash)\n".utf8).write(to: URL(fileURLWithPath: path))
        let file = try AdminTokensFile(path: path, logger: Self.logger)
        #expect(file.tokens.count == 1)

        try Data("alice:\(AdminTokensTests.aliceHash)\nbob:\(AdminTokensTests.bobHash)\n".utf8).write(to: URL(fileURLWithPath: path))
        file.reload()
        #expect(file.tokens.admin(presenting: "bob-token") == "bob")

        try Data("alice:\(AdminTokensTests.aliceHash)\nbob:not-a-hash\n".utf8).write(to: URL(fileURLWithPath: path))
        file.reload()
        #expect(file.tokens.count == 0, "a bad version lets no one in")

        try Data("alice:\(AdminTokensTests.aliceHash)\n".utf8).write(to: URL(fileURLWithPath: path))
        file.reload()
        #expect(file.tokens.admin(presenting: "alice-token") == "alice")

        try FileManager.default.removeItem(atPath: path)
        file.reload()
        #expect(file.tokens.count == 0, "deleting the file revokes every token")
    }
}
