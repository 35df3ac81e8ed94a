import Postgres
import Testing

extension PostgresServerTests {
    /// A schema's functions are source, applied in full after its migrations at every start.
    @Suite struct SchemaFunctionTests {
        static let migrations = [
            Migration(version: 1, name: "items", sql: "CREATE TABLE items (id bigserial PRIMARY KEY, label text NOT NULL);"),
        ]

        static func functions(answer: Int) -> String {
            """
            CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS $$ SELECT \(answer) $$;
            -- A SQL function's body is checked against the tables, which the migrations made first
            -- (the search_path is the schema's while the file runs, not when the function is called).
            CREATE OR REPLACE FUNCTION item_count() RETURNS bigint LANGUAGE sql SET search_path FROM CURRENT
                AS $$ SELECT count(*) FROM items $$;
            """
        }

        static func answer(_ client: PostgresClient, _ schema: String) async throws -> Int64? {
            try await client.query("SELECT \(unescaped: schema).answer() AS a").first?.int("a")
        }

        @Test func appliedAfterTheMigrationsAndReplacedAtEveryStart() async throws {
            try await TestDatabase.withClient { client in
                let schema = TestDatabase.uniqueName("fn")
                try await client.migrate(schema: schema, migrations: Self.migrations, functions: Self.functions(answer: 1))
                #expect(try await Self.answer(client, schema) == 1)
                #expect(try await client.query("SELECT \(unescaped: schema).item_count() AS n").first?.int("n") == 0)
                // The next start's file wins, with no new migration.
                try await client.migrate(schema: schema, migrations: Self.migrations, functions: Self.functions(answer: 2))
                #expect(try await Self.answer(client, schema) == 2)
                _ = try await client.query("DROP SCHEMA \(unescaped: schema) CASCADE")
            }
        }

        @Test func codeThatKnowsFewerVersionsLeavesTheFunctionsAlone() async throws {
            try await TestDatabase.withClient { client in
                let schema = TestDatabase.uniqueName("fn")
                let newer = Self.migrations + [Migration(version: 2, name: "more", sql: "ALTER TABLE items ADD COLUMN n int;")]
                try await client.migrate(schema: schema, migrations: newer, functions: Self.functions(answer: 2))
                // An older replica restarting during a rolling update.
                try await client.migrate(schema: schema, migrations: Self.migrations, functions: Self.functions(answer: 1))
                #expect(try await Self.answer(client, schema) == 2)
                _ = try await client.query("DROP SCHEMA \(unescaped: schema) CASCADE")
            }
        }

        @Test func aBrokenFileFailsTheStartAndChangesNothing() async throws {
            try await TestDatabase.withClient { client in
                let schema = TestDatabase.uniqueName("fn")
                try await client.migrate(schema: schema, migrations: Self.migrations, functions: Self.functions(answer: 1))
                let broken = Self.functions(answer: 3) + "CREATE OR REPLACE FUNCTION oops() RETURNS int LANGUAGE sql AS $$ SELEC 1 $$;"
                let error = await #expect(throws: PostgresError.self) {
                    try await client.migrate(schema: schema, migrations: Self.migrations, functions: broken)
                }
                #expect(String(describing: error).contains("functions of \(schema)"))
                // One transaction: the good part of the broken file did not land either.
                #expect(try await Self.answer(client, schema) == 1)
                _ = try await client.query("DROP SCHEMA \(unescaped: schema) CASCADE")
            }
        }
    }
}
