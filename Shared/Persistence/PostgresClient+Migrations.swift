import Logging
import Postgres

extension PostgresClient {
    /// Applies `migrations` and then `functions` to `schema` (see `migrate(schema:migrations:functions:)`),
    /// waiting for the database (every second) while it cannot be reached, so a service that starts before
    /// PostgreSQL does not exit. Other errors throw.
    public func migrateRetrying(schema: String, migrations: [Migration], functions: String? = nil,
                                logger: Logger) async throws {
        var warned = false
        while true {
            do {
                try await migrate(schema: schema, migrations: migrations, functions: functions)
                logger.info("schema up to date", ["db.schema": schema, "db.version": String(migrations.map(\.version).max() ?? 0)])
                return
            } catch let error as PostgresError where error.isUnavailable {
                if !warned {
                    logger.warning("database not reachable yet, retrying", ["error": String(describing: error)])
                    warned = true
                }
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}

extension PostgresClient {
    /// A service's connection pool on `url`, named `applicationName` in PostgreSQL, with its own
    /// schema migrated and its functions applied first (waiting for the database while it cannot be reached).
    public static func migrated(url: String, poolSize: Int, applicationName: String, schema: String,
                                migrations: [Migration], functions: String? = nil,
                                logger: Logger) async throws -> PostgresClient {
        var configuration = try PostgresConfiguration(url: url)
        configuration.poolSize = poolSize
        configuration.applicationName = applicationName
        let database = PostgresClient(configuration: configuration, logger: logger.named("postgres"))
        do {
            try await database.migrateRetrying(schema: schema, migrations: migrations, functions: functions, logger: logger)
        } catch {
            await database.close()
            throw error
        }
        return database
    }
}
