import Postgres
import Testing

extension PostgresServerTests {
    @Suite struct TransactionTests {
        struct Boom: Error {}

        @Test func throwingBodyRollsBack() async throws {
            try await TestDatabase.withClient(poolSize: 1) { client in
                let table = TestDatabase.uniqueName("tx")
                _ = try await client.query("CREATE TABLE \(unescaped: table) (n int)")
                await #expect(throws: Boom.self) {
                    try await client.withTransaction { connection in
                        _ = try await connection.query("INSERT INTO \(unescaped: table) VALUES (\(1))")
                        throw Boom()
                    }
                }
                #expect(try await client.query("SELECT count(*) AS n FROM \(unescaped: table)").first?.int("n") == 0)

                let value = try await client.withTransaction { connection in
                    _ = try await connection.query("INSERT INTO \(unescaped: table) VALUES (\(2))")
                    return try await connection.query("SELECT count(*) AS n FROM \(unescaped: table)").first?.int("n")
                }
                #expect(value == 1)
                #expect(try await client.query("SELECT sum(n) AS s FROM \(unescaped: table)").first?.int("s") == 2)
                _ = try await client.query("DROP TABLE \(unescaped: table)")
            }
        }

        @Test func failedStatementInsideTransactionRollsBackEverything() async throws {
            try await TestDatabase.withClient(poolSize: 1) { client in
                let table = TestDatabase.uniqueName("txfail")
                _ = try await client.query("CREATE TABLE \(unescaped: table) (n int PRIMARY KEY)")
                let error = await #expect(throws: PostgresError.self) {
                    try await client.withTransaction { connection in
                        _ = try await connection.query("INSERT INTO \(unescaped: table) VALUES (\(1))")
                        _ = try await connection.query("INSERT INTO \(unescaped: table) VALUES (\(1))")
                    }
                }
                #expect(error?.isUniqueViolation == true)
                #expect(try await client.query("SELECT count(*) AS n FROM \(unescaped: table)").first?.int("n") == 0)
                _ = try await client.query("DROP TABLE \(unescaped: table)")
            }
        }

        @Test func transactionLeftOpenIsRolledBackBeforeReuse() async throws {
            try await TestDatabase.withClient(poolSize: 1) { client in
                let table = TestDatabase.uniqueName("leftopen")
                _ = try await client.query("CREATE TABLE \(unescaped: table) (n int)")
                try await client.withConnection { connection in
                    _ = try await connection.query("BEGIN")
                    _ = try await connection.query("INSERT INTO \(unescaped: table) VALUES (\(1))")
                }
                // A BEGIN through the pooled query() is rolled back at once, so the insert autocommits alone.
                _ = try await client.query("BEGIN")
                _ = try await client.query("INSERT INTO \(unescaped: table) VALUES (\(2))")
                _ = try await client.query("ROLLBACK")
                let rows = try await client.query("SELECT n FROM \(unescaped: table)")
                #expect(try rows.map { try $0.int("n") } == [2])
                _ = try await client.query("DROP TABLE \(unescaped: table)")
            }
        }

        @Test func connectionIsUnusableAfterItsScope() async throws {
            try await TestDatabase.withClient(poolSize: 1) { client in
                let escaped = try await client.withConnection { $0 }
                let error = await #expect(throws: PostgresError.self) { try await escaped.query("SELECT 1") }
                #expect(error == .connectionReleased)
            }
        }

        @Test func statementsArePreparedOncePerConnection() async throws {
            try await TestDatabase.withClient(poolSize: 1) { client in
                for value in 0..<3 {
                    #expect(try await client.query("SELECT \(value)::int + 1 AS v").first?.int("v") == Int64(value + 1))
                }
                let count = try await client.query(
                    "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = \("SELECT $1::int + 1 AS v")")
                #expect(try count.first?.int("n") == 1)

                // The server forgetting the statement (DISCARD ALL) is repaired by preparing it again.
                _ = try await client.query("DEALLOCATE ALL")
                #expect(try await client.query("SELECT \(41)::int + 1 AS v").first?.int("v") == 42)
            }
        }
    }
}
