import Foundation
import Gateway
import HTTPClient
import Logging
import Management
import Runtime

/// A gateway of its own (own port, own configuration, any NATS), for tests of limits and
/// failure mapping that must not touch the shared stack's gateway.
public final class StandaloneGateway: Sendable {
    /// Its base URL.
    public let url: String
    /// Its API port, for raw sockets.
    public let port: Int
    /// Its management port's base URL (`/metrics`, `/healthz`, `/readyz`).
    public let managementURL: String
    private let task: Task<Void, Never>

    private init(port: Int, managementURL: String, task: Task<Void, Never>) {
        self.url = "http://127.0.0.1:\(port)"
        self.port = port
        self.managementURL = managementURL
        self.task = task
    }

    /// Starts a gateway; `configure` adjusts the test defaults (port 0, loopback, the stack's issuer and audience).
    public static func start(natsURL: String, configure: (inout GatewayConfiguration) -> Void = { _ in }) async throws -> StandaloneGateway {
        var configuration = GatewayConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.natsURL = natsURL
        configuration.natsAccess = TestIdentities.access(for: .gateway)
        configuration.tokenIssuer = TestStack.tokenIssuer
        configuration.tokenAudience = TestStack.tokenAudience
        configuration.management = .init(host: "127.0.0.1", port: 0)
        configure(&configuration)
        // Both ports are told, each once, in no promised order (the management port is a service of the group beside the API's).
        let (ports, continuation) = AsyncStream<(management: Bool, port: Int)>.makeStream()
        let server = GatewayServer(configuration: configuration, logger: Logger(label: "standalone-gateway", level: .critical),
                                   onListening: { continuation.yield((false, $0)) }, onManagementListening: { continuation.yield((true, $0)) })
        let task = Task {
            do { try await server.run() } catch { continuation.finish() }
        }
        var management: Int?
        var api: Int?
        for await told in ports {
            if told.management { management = told.port } else { api = told.port }
            if let management, let api {
                return StandaloneGateway(port: api, managementURL: "http://127.0.0.1:\(management)", task: task)
            }
        }
        throw TestStackError("the standalone gateway did not start")
    }

    /// Waits until it has connected to its NATS (`/readyz?services=all` stops saying "disconnected"); throws after 5 s.
    public func waitUntilConnected() async throws {
        let url = self.url
        let connected = try await eventually(timeout: .seconds(5)) {
            !(try await RunningStack.send("GET", url + "/readyz?services=all").text.contains("disconnected"))
        }
        guard connected else { throw TestStackError("the gateway at \(url) did not connect to NATS") }
    }

    /// Stops it.
    public func stop() async {
        task.cancel()
        await task.value
    }
}
