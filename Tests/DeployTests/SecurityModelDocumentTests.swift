import Foundation
import Messaging
import Testing
import TestSupport

/// The README's NATS permission table is the one the code makes the server's configuration from.
@Suite("README: the security model's permission table")
struct SecurityModelDocumentTests {
    @Test("the README's table is exactly what `nats-auth table` prints")
    func tableMatchesTheCode() throws {
        let readme = try String(contentsOf: ConfigurationReference.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- nats-permissions: made by `nats-auth table` -->\n"))
        let end = try #require(readme.range(of: "<!-- /nats-permissions -->", range: start.upperBound..<readme.endIndex))
        #expect(String(readme[start.upperBound..<end.lowerBound]) == BusAuthorization.markdownTable(),
                "run deploy/local/permission-table (it pastes `nats-auth table` into the README)")
    }
}
