import Foundation
import Logging
import Postgres
import Testing

/// Shared set-up for the suites that need the real PostgreSQL named by `DATABASE_URL`.
enum TestDatabase {
    static let url = ProcessInfo.processInfo.environment["DATABASE_URL"]
        ?? "postgres://auth:auth@127.0.0.1:5432/auth"

    static let logger = Logger(label: "postgres-tests", level: .debug, sink: .capturing())

    /// A client for the test server with a small pool; the caller closes it.
    static func client(poolSize: Int = 4, poolTimeout: Duration = .seconds(10), logger: Logger = logger) throws -> PostgresClient {
        var configuration = try PostgresConfiguration(url: url)
        configuration.poolSize = poolSize
        configuration.poolTimeout = poolTimeout
        configuration.connectTimeout = .seconds(2)
        configuration.applicationName = "postgres-tests"
        return PostgresClient(configuration: configuration, logger: logger)
    }

    /// A name no other test uses, for tables and schemas (lower case, safe as an identifier).
    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Runs `body` with a fresh client and closes it afterwards, also when `body` throws.
    @discardableResult
    static func withClient<T>(poolSize: Int = 4, poolTimeout: Duration = .seconds(10),
                              _ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = try client(poolSize: poolSize, poolTimeout: poolTimeout)
        do {
            let value = try await body(client)
            await client.close()
            return value
        } catch {
            await client.close()
            throw error
        }
    }
}

/// Every suite that talks to the server, run one after another: the restart test stops the shared server.
@Suite(.serialized) struct PostgresServerTests {
    @Test func serverIsReachable() async throws {
        let rows = try await TestDatabase.withClient { try await $0.query("SELECT 1 AS one") }
        #expect(try rows.first?.int("one") == 1)
    }
}
