import Foundation
import HTTPClient
import Logging

/// A client for one test, logging warnings and worse to standard error.
func makeClient(_ configuration: HTTPClient.Configuration = .init()) -> HTTPClient {
    HTTPClient(configuration: configuration, logger: Logger(label: "http-client-test", level: .warning, format: .text))
}

/// Runs `body` with a client (``makeClient(_:)``) and shuts the client down afterwards.
func withClient(_ configuration: HTTPClient.Configuration = .init(), _ body: (HTTPClient) async throws -> Void) async throws {
    let client = makeClient(configuration)
    defer { client.shutdown() }
    try await body(client)
}

/// Runs `body` with a new test server (HTTPS with `tls`) and a client of its own (``withClient(_:_:)``).
func withServerAndClient(tls: Bool = false, _ configuration: HTTPClient.Configuration = .init(),
                         _ body: (TestServer, HTTPClient) async throws -> Void) async throws {
    let server = try await TestServer.start(tls: tls)
    try await withClient(configuration) { client in try await body(server, client) }
}

/// What the test server's echo endpoint answers.
struct Echo: Decodable {
    let method: String
    let path: String
    let headers: [String: String]
    let body: String
    let port: Int

    init(_ response: HTTPClientResponse) throws {
        self = try JSONDecoder().decode(Echo.self, from: Data(response.body))
    }
}

/// Seconds elapsed since `start`, for "it failed quickly" checks.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}
