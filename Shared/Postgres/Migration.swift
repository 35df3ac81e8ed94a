/// One schema change, applied once per database in `version` order by `PostgresClient.migrate`.
public struct Migration: Sendable {
    /// Unique, increasing version number.
    public let version: Int
    /// A short name; a recorded version whose name differs from this one is reported as a conflict.
    public let name: String
    /// SQL to run, possibly several statements; it runs inside a transaction, so it must not BEGIN or COMMIT itself.
    public let sql: String

    /// Creates a migration.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
