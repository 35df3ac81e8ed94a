extension PostgresClient {
    /// Creates `schema` if missing (its name is checked below: lower-case letters, digits, `_`) and applies the pending `migrations` in version order, each in its own
    /// transaction, recording them in `<schema>.schema_migrations`.
    ///
    /// A transaction-scoped advisory lock derived from the schema name makes concurrent callers (replicas starting
    /// together) apply each version exactly once. Inside a migration the `search_path` is `<schema>, public`, so
    /// unqualified names land in the schema. A recorded version with a different name is an error.
    ///
    /// `functions` is the schema's source rather than its history: SQL that defines its functions, procedures
    /// and triggers with `CREATE OR REPLACE` (and drops those it no longer wants). It runs in full at every call,
    /// after the migrations, in its own transaction under the same lock, so every replica ends with the same
    /// definitions. Code that does not know every recorded version (an older replica during a rolling update)
    /// leaves them as the newer code wrote them; so a change to `functions` comes with a new migration
    /// version (an empty step will do), or an older replica that restarts would write its own back.
    public func migrate(schema: String, migrations: [Migration], functions: String? = nil) async throws {
        guard let first = schema.unicodeScalars.first,
              first == "_" || ("a"..."z").contains(first),
              schema.unicodeScalars.allSatisfy({ $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }),
              schema.utf8.count <= 63
        else {
            throw PostgresError.migration("schema name '\(schema)' must be lower-case letters, digits and '_'")
        }
        let ordered = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(ordered, ordered.dropFirst()) where previous.version == next.version {
            throw PostgresError.migration("version \(next.version) appears twice")
        }
        let lockKey = Self.lockKey(schema: schema)
        let table = "\"\(schema)\".schema_migrations"

        try await withConnection { connection in
            try await Self.locked(connection, lockKey: lockKey) {
                // Only when missing: a service whose role owns a schema made for it (deploy/postgres/roles.sql)
                // has no right to create schemas, and PostgreSQL checks that right before IF NOT EXISTS.
                _ = try await connection.execute("""
                    DO $$ BEGIN
                        IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = '\(schema)') THEN
                            CREATE SCHEMA "\(schema)";
                        END IF;
                    END $$;
                    CREATE TABLE IF NOT EXISTS \(table) (
                        version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
                    """)
            }
            var applied = try await Self.appliedVersions(connection, table: table)
            for migration in ordered {
                if try Self.alreadyApplied(migration, applied: applied) { continue }
                try await Self.locked(connection, lockKey: lockKey) {
                    // Another replica may have applied it while this one waited for the lock.
                    applied = try await Self.appliedVersions(connection, table: table)
                    if try Self.alreadyApplied(migration, applied: applied) { return }
                    _ = try await connection.execute("SET LOCAL search_path TO \"\(schema)\", public")
                    do {
                        _ = try await connection.execute(migration.sql)
                    } catch let error as PostgresError {
                        throw PostgresError.migration("version \(migration.version) (\(migration.name)): \(error)")
                    }
                    _ = try await connection.query(
                        "INSERT INTO \(unescaped: table) (version, name) VALUES (\(migration.version), \(migration.name))")
                    logger.info("applied migration",
                                ["db.schema": schema, "migration.version": String(migration.version),
                                 "migration.name": migration.name])
                }
            }
            if let functions {
                try await Self.locked(connection, lockKey: lockKey) {
                    try await apply(functions, schema: schema, knownVersion: ordered.last?.version ?? 0,
                                    table: table, on: connection)
                }
            }
        }
    }

    /// Runs the schema's `functions` SQL, unless the database holds a migration newer than `knownVersion`.
    private func apply(_ functions: String, schema: String, knownVersion: Int, table: String,
                       on connection: PostgresConnection) async throws {
        let newest = try await Self.appliedVersions(connection, table: table).keys.max() ?? 0
        guard newest <= knownVersion else {
            logger.notice("functions left as newer code defined them",
                          ["db.schema": schema, "db.version": String(newest), "code.version": String(knownVersion)])
            return
        }
        _ = try await connection.execute("SET LOCAL search_path TO \"\(schema)\", public")
        do {
            _ = try await connection.execute(functions)
        } catch let error as PostgresError {
            throw PostgresError.migration("functions of \(schema): \(error)")
        }
    }

    /// Runs `body` in a transaction holding the schema's advisory lock; rolls back when it throws.
    private static func locked(_ connection: PostgresConnection, lockKey: Int64,
                               _ body: () async throws -> Void) async throws {
        _ = try await connection.execute("BEGIN")
        do {
            _ = try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey)::bigint)")
            try await body()
            _ = try await connection.execute("COMMIT")
        } catch {
            _ = try? await connection.execute("ROLLBACK")
            throw error
        }
    }

    private static func appliedVersions(_ connection: PostgresConnection, table: String) async throws -> [Int: String] {
        var applied: [Int: String] = [:]
        for row in try await connection.query("SELECT version, name FROM \(unescaped: table)") {
            applied[Int(try row.int("version"))] = try row.string("name")
        }
        return applied
    }

    private static func alreadyApplied(_ migration: Migration, applied: [Int: String]) throws -> Bool {
        guard let recorded = applied[migration.version] else { return false }
        guard recorded == migration.name else {
            throw PostgresError.migration(
                "version \(migration.version) is recorded as '\(recorded)' but the code calls it '\(migration.name)'")
        }
        return true
    }

    /// A stable 64-bit advisory-lock key for the schema (FNV-1a), the same in every process.
    static func lockKey(schema: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "schema_migrations:\(schema)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}
