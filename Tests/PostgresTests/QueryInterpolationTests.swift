import Foundation
import Postgres
import Testing

/// `PostgresQuery` built by interpolation: what text and which values it sends (no server needed).
@Suite struct QueryInterpolationTests {
    @Test func eachValueIsTheNextPlaceholderInOrder() {
        let memberId: Int64 = 42
        let query: PostgresQuery = "SELECT name FROM member.members WHERE id = \(memberId) AND email = \("a@example.com") LIMIT \(5)"
        #expect(query.sql == "SELECT name FROM member.members WHERE id = $1 AND email = $2 LIMIT $3")
        #expect(query.binds == [.int(42), .text("a@example.com"), .int(5)])
    }

    @Test func nilIsNullAndAPresentOptionalIsItsValue() {
        let missing: String? = nil
        let present: Bool? = true
        let none: Int64? = nil
        let query: PostgresQuery = "SELECT \(missing), \(present), \(none), \([UInt8]?.none)"
        #expect(query.sql == "SELECT $1, $2, $3, $4")
        #expect(query.binds == [.null, .bool(true), .null, .null])
    }

    @Test func aValueUsedTwiceIsBoundTwice() {
        let email = "a@example.com"
        let query: PostgresQuery = "UPDATE t SET email = COALESCE(\(email), email) WHERE \(email)::text IS NOT NULL"
        #expect(query.sql == "UPDATE t SET email = COALESCE($1, email) WHERE $2::text IS NOT NULL")
        #expect(query.binds == [.text(email), .text(email)])
    }

    @Test func unescapedTextIsSplicedAndTakesNoPlaceholder() {
        let table = "member.outbox"
        let query: PostgresQuery = "DELETE FROM \(unescaped: table) WHERE id = \(7) AND kind = \(unescaped: "'x'") AND n = \(8)"
        #expect(query.sql == "DELETE FROM member.outbox WHERE id = $1 AND kind = 'x' AND n = $2")
        #expect(query.binds == [.int(7), .int(8)])
    }

    @Test func aStringValueIsNeverSpliced() {
        let attack = "x'); DROP TABLE t; --"
        let query: PostgresQuery = "SELECT \(attack)"
        #expect(query.sql == "SELECT $1")
        #expect(!query.sql.contains("DROP"))
    }

    @Test func aPlainLiteralKeepsItsTextAndHasNoValues() {
        let query: PostgresQuery = "DO $$ BEGIN PERFORM 1; END $$"
        #expect(query.sql == "DO $$ BEGIN PERFORM 1; END $$")
        #expect(query.binds.isEmpty)
        #expect(PostgresQuery(unescaped: "SELECT 1").binds.isEmpty)
    }

    @Test func swiftTypesKeepTheirWireKinds() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let uuid = UUID()
        let bytes: [UInt8] = [0, 1, 2]
        let query: PostgresQuery = "SELECT \(1), \(Int32(2)), \(1.5), \(bytes), \(date), \(uuid), \(false), \(PostgresValue.json("{}"))"
        #expect(query.binds == [.int(1), .int(2), .double(1.5), .bytea(bytes), .timestamp(date), .uuid(uuid), .bool(false), .json("{}")])
    }

    @Test func theDescriptionShowsTheTextButNotTheValues() {
        let secret = "refresh-token-value"
        let query: PostgresQuery = "SELECT \(secret)"
        #expect(String(describing: query) == "SELECT $1")
    }
}

extension PostgresServerTests {
    /// The same queries against the real server: the values arrive as values.
    @Suite struct QueryBindingTests {
        @Test func repeatedNullAndSplicedPartsReachTheServerAsWritten() async throws {
            try await TestDatabase.withClient { client in
                let word = "it's"
                let missing: String? = nil
                let column = "answer"
                let row = try #require(try await client.query("""
                    SELECT \(word)::text = \(word)::text AS same, \(missing)::text IS NULL AS null_sent, \(41)::int + 1 AS \(unescaped: column)
                    """).first)
                #expect(try row.bool("same"))
                #expect(try row.bool("null_sent"))
                #expect(try row.int("answer") == 42)
            }
        }
    }
}
