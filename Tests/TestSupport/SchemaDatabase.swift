import Logging
import Postgres
import Testing

/// A fresh test database (``TestStack/freshDatabase()``) reached as one service's role, for the
/// store tests and the schema-upgrade tests, which need PostgreSQL but no NATS.
public enum SchemaDatabase {
    /// A client of a new database as `role`, with `migrations` and then `functions` applied to `schema`
    /// (nothing applied when `migrations` is empty). The caller closes it.
    public static func fresh(_ role: TestDatabases.Role, schema: String, migrations: [Migration],
                             functions: String? = nil) async throws -> PostgresClient {
        let adminURL = try await TestStack.freshDatabase()
        var configuration = try PostgresConfiguration(url: TestStack.serviceURL(adminURL, role))
        configuration.poolSize = 4
        let database = PostgresClient(configuration: configuration, logger: Logger(label: "test-\(schema)", level: .error))
        if !migrations.isEmpty {
            try await database.migrate(schema: schema, migrations: migrations, functions: functions)
        }
        return database
    }

    /// Every function, procedure and trigger in `schema`: its signature (or `trigger <name> on <table>`)
    /// to its owner and its definition as the server prints it, to compare two databases.
    public static func routines(_ database: PostgresClient, schema: String) async throws -> [String: String] {
        let rows = try await database.query("""
            SELECT p.oid::regprocedure::text AS signature, p.proowner::regrole::text || E'\\n' || pg_get_functiondef(p.oid) AS definition
              FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = \(schema)
            UNION ALL
            SELECT 'trigger ' || t.tgname || ' on ' || c.relname, pg_get_triggerdef(t.oid)
              FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = \(schema) AND NOT t.tgisinternal
            """)
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.string("signature"), try $0.string("definition")) })
    }

    /// Expects a database that first ran the `shipped` steps and then had the current code start on it,
    /// as an upgrade does, to end with the same routines (``routines(_:schema:)``) as a fresh one with the
    /// current `migrations` and `functions`: those named in `expected`, every function and procedure
    /// owned by `role`.
    public static func expectUpgradedMatchesFresh(_ role: TestDatabases.Role, schema: String, migrations: [Migration],
                                                  functions: String, shipped: [Migration], expected: Set<String>,
                                                  sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let fresh = try await Self.fresh(role, schema: schema, migrations: migrations, functions: functions)
        let (freshRoutines, upgradedRoutines) = try await withResource(fresh, close: { await $0.close() }) { fresh in
            let upgraded = try await Self.fresh(role, schema: schema, migrations: shipped)
            return try await withResource(upgraded, close: { await $0.close() }) { upgraded in
                try await upgraded.migrate(schema: schema, migrations: migrations, functions: functions)
                return (try await routines(fresh, schema: schema), try await routines(upgraded, schema: schema))
            }
        }
        #expect(Set(freshRoutines.keys) == expected, sourceLocation: sourceLocation)
        #expect(upgradedRoutines == freshRoutines, sourceLocation: sourceLocation)
        // A trigger's definition names no owner; the function it runs is checked.
        let owned = freshRoutines.filter { !$0.key.hasPrefix("trigger ") }.values
        #expect(owned.allSatisfy { $0.hasPrefix("\(role.rawValue)\n") }, sourceLocation: sourceLocation)
    }
}
