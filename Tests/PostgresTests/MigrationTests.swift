import Postgres
import Testing

extension PostgresServerTests {
    @Suite struct MigrationTests {
        static func migrations(schema: String) -> [Migration] {
            [
                Migration(version: 2, name: "seed", sql: "INSERT INTO items (label) VALUES ('first'); INSERT INTO log (version) VALUES (2);"),
                Migration(version: 1, name: "create items", sql: """
                    CREATE TABLE items (id bigserial PRIMARY KEY, label text NOT NULL);
                    CREATE TABLE log (version int NOT NULL);
                    INSERT INTO log (version) VALUES (1);
                    """),
            ]
        }

        @Test func appliesOnceAndIsIdempotent() async throws {
            try await TestDatabase.withClient { client in
                let schema = TestDatabase.uniqueName("mig")
                try await client.migrate(schema: schema, migrations: Self.migrations(schema: schema))
                try await client.migrate(schema: schema, migrations: Self.migrations(schema: schema))
                let applied = try await client.query("SELECT version, name, applied_at FROM \(unescaped: schema).schema_migrations ORDER BY version")
                #expect(try applied.map { try $0.int("version") } == [1, 2])
                #expect(try applied.map { try $0.string("name") } == ["create items", "seed"])
                #expect(try await client.query("SELECT count(*) AS n FROM \(unescaped: schema).items").first?.int("n") == 1)
                #expect(try await client.query("SELECT count(*) AS n FROM \(unescaped: schema).log").first?.int("n") == 2)
                _ = try await client.query("DROP SCHEMA \(unescaped: schema) CASCADE")
            }
        }

        @Test func concurrentCallersApplyEachVersionExactlyOnce() async throws {
            let schema = TestDatabase.uniqueName("migrace")
            let clients = try (0..<3).map { _ in try TestDatabase.client(poolSize: 2) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in clients {
                    group.addTask { try await client.migrate(schema: schema, migrations: Self.migrations(schema: schema)) }
                }
                try await group.waitForAll()
            }
            let client = clients[0]
            let log = try await client.query("SELECT version, count(*) AS n FROM \(unescaped: schema).log GROUP BY version ORDER BY version")
            #expect(try log.map { try $0.int("version") } == [1, 2])
            #expect(try log.allSatisfy { try $0.int("n") == 1 })
            #expect(try await client.query("SELECT count(*) AS n FROM \(unescaped: schema).items").first?.int("n") == 1)
            _ = try await client.query("DROP SCHEMA \(unescaped: schema) CASCADE")
            for client in clients { await client.close() }
        }

        @Test func renamedVersionIsAnError() async throws {
            try await TestDatabase.withClient { client in
                let schema = TestDatabase.uniqueName("migname")
                try await client.migrate(schema: schema, migrations: [Migration(version: 1, name: "a", sql: "SELECT 1")])
                let error = await #expect(throws: PostgresError.self) {
                    try await client.migrate(schema: schema, migrations: [Migration(version: 1, name: "b", sql: "SELECT 1")])
                }
                #expect(error?.description.contains("recorded as 'a'") == true)
                _ = try await client.query("DROP SCHEMA \(unescaped: schema) CASCADE")
            }
        }

        @Test func failingMigrationLeavesNoTrace() async throws {
            try await TestDatabase.withClient { client in
                let schema = TestDatabase.uniqueName("migfail")
                let migrations = [
                    Migration(version: 1, name: "ok", sql: "CREATE TABLE good (n int)"),
                    Migration(version: 2, name: "broken", sql: "CREATE TABLE half (n int); SELECT * FROM no_such_table;"),
                ]
                await #expect(throws: PostgresError.self) { try await client.migrate(schema: schema, migrations: migrations) }
                let versions = try await client.query("SELECT version FROM \(unescaped: schema).schema_migrations")
                #expect(try versions.map { try $0.int("version") } == [1])
                let half = try await client.query(
                    "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = \(schema) AND table_name = 'half'")
                #expect(try half.first?.int("n") == 0)
                _ = try await client.query("DROP SCHEMA \(unescaped: schema) CASCADE")
            }
        }

        @Test func rejectsUnsafeSchemaNames() async throws {
            try await TestDatabase.withClient { client in
                await #expect(throws: PostgresError.self) {
                    try await client.migrate(schema: "x\"; DROP SCHEMA public; --", migrations: [])
                }
            }
        }
    }
}
