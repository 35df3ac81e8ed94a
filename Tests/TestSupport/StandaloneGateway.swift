import Foundation
import Gateway
import HTTPClient
import Logging
import Runtime

/// A gateway of its own (own port, own configuration, any NATS), for tests of limits and
/// failure mapping that must not touch the shared stack's gateway.
public final class StandaloneGateway: Sendable {
    /// Its base URL.
    public let url: String
    private let task: Task<Void, Never>

    private init(url: String, task: Task<Void, Never>) {
        self.url = url
        self.task = task
    }

    /// Starts a gateway; `configure` adjusts the test defaults (port 0, loopback, the stack's issuer and audience).
    public static func start(natsURL: String, configure: (inout GatewayConfiguration) -> Void = { _ in }) async throws -> StandaloneGateway {
        var configuration = GatewayConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.natsURL = natsURL
        configuration.tokenIssuer = TestStack.tokenIssuer
        configuration.tokenAudience = TestStack.tokenAudience
        configure(&configuration)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let server = GatewayServer(configuration: configuration, logger: Logger(label: "standalone-gateway", level: .critical)) {
            continuation.yield($0)
        }
        let task = Task {
            do { try await server.run() } catch { continuation.finish() }
        }
        for await port in ports {
            return StandaloneGateway(url: "http://127.0.0.1:\(port)", task: task)
        }
        throw TestStackError("the standalone gateway did not start")
    }

    /// Waits until it has connected to its NATS (`/readyz` stops saying "disconnected"); throws after 5 s.
    public func waitUntilConnected() async throws {
        for _ in 0..<100 {
            let ready = try await RunningStack.send("GET", url + "/readyz")
            if !ready.text.contains("disconnected") { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestStackError("the gateway at \(url) did not connect to NATS")
    }

    /// Stops it.
    public func stop() async {
        task.cancel()
        await task.value
    }
}
