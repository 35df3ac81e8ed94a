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

    @Test("every outcome is one the SQL functions can answer, and they answer no other",
          arguments: ["issuer.refresh_second_look", "issuer.rotate_legacy_refresh_token", "issuer.rotate_refresh_token"])
    func matchesTheFunction(_ function: String) throws {
        let body = try Self.body(of: function)
        var answered = Set(body.components(separatedBy: "outcome := '").dropFirst().map { String($0.prefix { $0 != "'" }) })
        // The refusals every refresh asks in one order: what issuer.session_refusal answers.
        #expect(body.contains("outcome := issuer.session_refusal("))
        let refusal = try Self.body(of: "issuer.session_refusal")
        for word in ["THEN '", "ELSE '"] {
            answered.formUnion(refusal.components(separatedBy: word).dropFirst().map { String($0.prefix { $0 != "'" }) })
        }
        #expect(answered == Set(RefreshOutcome.allCases.map(\.rawValue)))
    }

    /// The text of `function`'s definition in the issuer's SQL.
    private static func body(of function: String) throws -> Substring {
        let sql = IssuerMigrations.functions
        let start = try #require(sql.range(of: "CREATE OR REPLACE FUNCTION \(function)("))
        let end = try #require(sql.range(of: "\n$$;", range: start.upperBound..<sql.endIndex))
        return sql[start.lowerBound..<end.lowerBound]
    }
}
