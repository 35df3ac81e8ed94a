import HTTPServer
import Logging

/// Starts a server on 127.0.0.1 and a free port, runs `body`, and stops the server whatever happens.
func withServer<T>(_ configuration: HTTPServer.Configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0),
                   handler: @escaping HTTPServer.Handler,
                   _ body: (HTTPServer) async throws -> T) async throws -> T {
    let server = HTTPServer(configuration: configuration, logger: Logger(label: "http-test", level: .error), handler: handler)
    try server.start()
    defer { server.stop() }
    return try await body(server)
}

/// A configuration for tests: loopback, a free port, and whatever the test changes.
func testConfiguration(_ change: (inout HTTPServer.Configuration) -> Void = { _ in }) -> HTTPServer.Configuration {
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
    change(&configuration)
    return configuration
}
