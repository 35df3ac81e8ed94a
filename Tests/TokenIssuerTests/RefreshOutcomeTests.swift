import Contracts
import Testing
@testable import TokenIssuer

/// What the caller of a refresh gets for each outcome the database reports.
@Suite("Refresh outcome: the reply for each outcome")
struct RefreshOutcomeTests {
    @Test("a first use and a duplicate inside the grace window get a token pair", arguments: [RefreshOutcome.rotated, .replayed])
    func granted(_ outcome: RefreshOutcome) {
        #expect(outcome.failure == nil)
        #expect(!outcome.endedSession)
    }

    @Test("a reuse is told apart and has ended the session")
    func reuse() {
        #expect(RefreshOutcome.reused.failure?.code == .refreshTokenReused)
        #expect(RefreshOutcome.reused.endedSession)
    }

    @Test("anything else is one invalid-token reply, whichever it was", arguments: [
        RefreshOutcome.unknown, .expired, .ended, .wrongDevice,
    ])
    func invalid(_ outcome: RefreshOutcome) {
        #expect(outcome.failure == RefreshOutcome.unknown.failure)
        #expect(outcome.failure?.code == .invalidRefreshToken)
        #expect(!outcome.endedSession)
    }

    @Test("every outcome is one the SQL function can answer, and it answers no other")
    func matchesTheFunction() throws {
        let sql = IssuerMigrations.functions
        let body = try #require(sql.range(of: "CREATE OR REPLACE FUNCTION issuer.rotate_refresh_token").map { sql[$0.lowerBound...] })
        for outcome in RefreshOutcome.allCases {
            #expect(body.contains("outcome := '\(outcome.rawValue)'"), "\(outcome)")
        }
        #expect(body.components(separatedBy: "outcome := '").count - 1 == RefreshOutcome.allCases.count)
    }
}
