import Foundation

/// Where the real servers are: the test script exports these; the defaults match
/// `docker-compose.yml` and `deploy/local/up`.
public enum TestEnvironment {
    /// `NATS_URL`, default `nats://127.0.0.1:4222`.
    public static var natsURL: String {
        ProcessInfo.processInfo.environment["NATS_URL"] ?? "nats://127.0.0.1:4222"
    }

    /// `DATABASE_ADMIN_URL`: a superuser of the test server, which makes the tests' databases and
    /// the services' roles in them; default `postgres://postgres:postgres@127.0.0.1:5432/postgres`.
    public static var adminDatabaseURL: String {
        ProcessInfo.processInfo.environment["DATABASE_ADMIN_URL"] ?? "postgres://postgres:postgres@127.0.0.1:5432/postgres"
    }

    /// `DATABASE_URL`, default `postgres://auth:auth@127.0.0.1:5432/auth`.
    public static var databaseURL: String {
        ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "postgres://auth:auth@127.0.0.1:5432/auth"
    }
}
