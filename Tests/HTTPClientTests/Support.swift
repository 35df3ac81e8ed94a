import Foundation
import HTTPClient
import Logging

/// A client for one test, logging warnings and worse to standard error.
func makeClient(_ configuration: HTTPClient.Configuration = .init()) -> HTTPClient {
    HTTPClient(configuration: configuration, logger: Logger(label: "http-client-test", level: .warning, format: .text))
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
