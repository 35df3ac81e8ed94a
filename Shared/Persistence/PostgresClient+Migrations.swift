import Logging
import Postgres
import Runtime

extension PostgresClient {
    /// Applies `migrations` and then `functions` to `schema` (see `migrate(schema:migrations:functions:)`),
    /// waiting for the database (every second) while it cannot be reached, so a service that starts before
    /// PostgreSQL does not exit. Other errors throw.
    public func migrateRetrying(schema: String, migrations: [Migration], functions: String? = nil,
                                logger: Logger) async throws {
        try await Retry.untilAvailable(logger: logger, warning: "database not reachable yet, retrying",
                                       isUnavailable: { ($0 as? PostgresError)?.isUnavailable == true }) {
            try await migrate(schema: schema, migrations: migrations, functions: functions)
        }
        logger.info("schema up to date", ["db.schema": schema, "db.version": String(migrations.map(\.version).max() ?? 0)])
    }
}

extension ResourceService where Value == PostgresClient {
    /// A service's connection pool on `url`, named `applicationName` in PostgreSQL, as a service of its
    /// group: it opens no connection by itself (the first statement does) and is closed, awaited, when
    /// the group stops. Migrate in the prelude that first needs it (``PostgresClient/migrateRetrying(schema:migrations:logger:)``).
    public static func database(url: String, poolSize: Int, applicationName: String, logger: Logger) -> ResourceService<PostgresClient> {
        ResourceService("postgres") {
            var configuration = try PostgresConfiguration(url: url)
            configuration.poolSize = poolSize
            configuration.applicationName = applicationName
            return PostgresClient(configuration: configuration, logger: logger.named("postgres"))
        } close: { database in
            await database.close()
        }
    }
}
