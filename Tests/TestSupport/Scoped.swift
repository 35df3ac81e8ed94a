import Logging
import Postgres

/// Runs `body` with `resource`, then awaits `close(resource)`, also when `body` throws: what a test
/// opened or started is closed before the test ends (a `defer { Task { ... } }` would not wait for it).
public func withResource<Resource, Result>(_ resource: Resource, close: (Resource) async -> Void,
                                           _ body: (Resource) async throws -> Result) async throws -> Result {
    let result: Result
    do {
        result = try await body(resource)
    } catch {
        await close(resource)
        throw error
    }
    await close(resource)
    return result
}

/// Runs `body` with a client of the database at `url` and closes the client afterwards.
public func withDatabase<Result>(_ url: String, _ body: (PostgresClient) async throws -> Result) async throws -> Result {
    let client = PostgresClient(configuration: try PostgresConfiguration(url: url), logger: Logger(label: "test-db", level: .error))
    return try await withResource(client, close: { await $0.close() }, body)
}
