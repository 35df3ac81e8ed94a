import Crypto
import DevIDP
import Foundation
import HTTPClient
import Logging
@testable import TokenVerifier

/// A dev identity provider of the test's own, so counts of fetches are exact.
enum PrivateIDP {
    /// Starts one on a free port with key sets cached for `jwksMaxAge` seconds.
    static func start(jwksMaxAge: Int = 300) async throws -> (url: String, idp: DevIdentityProvider) {
        var configuration = DevIDPConfiguration()
        configuration.port = 0
        configuration.jwksMaxAge = jwksMaxAge
        let (stream, continuation) = AsyncStream<(Int, DevIdentityProvider)>.makeStream()
        let server = DevIDPServer(configuration: configuration, logger: Logger(label: "dev-idp", level: .error)) {
            continuation.yield(($0, $1))
        }
        Task { try? await server.run() }
        for await (port, idp) in stream { return ("http://127.0.0.1:\(port)", idp) }
        throw TestFailure("the private dev-idp did not start")
    }
}

/// The HTTP client the tests share.
let testHTTPClient = HTTPClient(logger: Logger(label: "test-http", level: .error))

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
