import Contracts
import Crypto
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
        ("alice:\(String(repeating: "g", count: 64))", 2), ("alice:\(bobHash)", 2),
    ])
    func badLine(_ line: String, _ number: Int) {
        do {
            _ = try AdminTokens(parsing: "alice:\(Self.aliceHash)\n\(line)\n")
            // A duplicate name is the only way the second line here is bad when well-formed.
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
}
