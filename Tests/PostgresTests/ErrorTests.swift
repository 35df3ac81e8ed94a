import Foundation
import Postgres
import Testing

extension PostgresServerTests {
    @Suite struct ServerErrorTests {
        @Test func uniqueViolationIsDetected() async throws {
            try await TestDatabase.withClient { client in
                let table = TestDatabase.uniqueName("uniq")
                _ = try await client.query("CREATE TABLE \(unescaped: table) (email text UNIQUE)")
                _ = try await client.query("INSERT INTO \(unescaped: table) VALUES (\("a@example.com"))")
                let error = await #expect(throws: PostgresError.self) {
                    try await client.query("INSERT INTO \(unescaped: table) VALUES (\("a@example.com"))")
                }
                #expect(error?.isUniqueViolation == true)
                #expect(error?.sqlState == "23505")
                #expect(error?.isUnavailable == false)
                #expect(error?.description.contains("a@example.com") == false)
                // The connection stays usable after a statement error.
                #expect(try await client.query("SELECT count(*) AS n FROM \(unescaped: table)").first?.int("n") == 1)
                _ = try await client.query("DROP TABLE \(unescaped: table)")
            }
        }

        @Test func dataExceptionDescriptionDoesNotQuoteTheParameter() async throws {
            try await TestDatabase.withClient { client in
                let error = await #expect(throws: PostgresError.self) {
                    try await client.query("SELECT \("secret-value")::int")
                }
                #expect(error?.sqlState == "22P02")
                #expect(error?.description.contains("secret-value") == false)
            }
        }

        @Test func syntaxErrorCarriesSQLState() async throws {
            try await TestDatabase.withClient { client in
                let error = await #expect(throws: PostgresError.self) { try await client.query("SELEC 1") }
                #expect(error?.sqlState == "42601")
                #expect(error?.isUniqueViolation == false)
            }
        }

        @Test func injectionThroughAParameterIsStoredLiterally() async throws {
            try await TestDatabase.withClient { client in
                let table = TestDatabase.uniqueName("inject")
                _ = try await client.query("CREATE TABLE \(unescaped: table) (name text)")
                let attack = "x'); DROP TABLE \(table); --"
                _ = try await client.query("INSERT INTO \(unescaped: table) (name) VALUES (\(attack))")
                let rows = try await client.query("SELECT name FROM \(unescaped: table) WHERE name = \(attack)")
                #expect(rows.count == 1)
                #expect(try rows.first?.string("name") == attack)
                _ = try await client.query("DROP TABLE \(unescaped: table)")
            }
        }
    }
}
