import Crypto
import DevIDP
import Foundation
import HTTPClient
import JOSE
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

/// A deterministic generator (SplitMix64), so a failing fuzz case can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
