import HTTPServer
import Logging
import Metrics
import Runtime

/// A service's management port: `/metrics` (its registry and the `process_*` figures), `/healthz`
/// (the process runs) and `/readyz` (it can serve). Kept off the public port.
///
/// The first service of its process's group, it serves from before the process connects to anything until
/// everything else has stopped; `/readyz` turns 503 when the group begins to stop (``groupWillStop()``),
/// before anything is cancelled.
public struct ManagementServer: Service {
    private let configuration: ManagementConfiguration
    private let metrics: MetricsRegistry
    private let readiness: Readiness
    private let logger: Logger
    private let onListening: @Sendable (Int) -> Void

    /// A management server for `metrics` and `readiness`; nothing listens until `run()`, which tells
    /// `onListening` the bound port (useful with port 0).
    public init(configuration: ManagementConfiguration, metrics: MetricsRegistry, readiness: Readiness, logger: Logger,
                onListening: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.configuration = configuration
        self.metrics = metrics
        self.readiness = readiness
        self.logger = logger
        self.onListening = onListening
    }

    public var name: String { "management" }

    /// The group begins to stop: `/readyz` answers 503 from now on.
    public func groupWillStop() {
        readiness.stopping()
    }

    /// Serves the management port, when one is configured, until cancelled.
    public func run() async throws {
        guard let port = configuration.port else {
            await Task.sleepUntilCancelled()
            return
        }
        let http = HTTPServer.Configuration(host: configuration.host, port: port, maxBodySize: 0, connectionLimit: 64,
                                            perAddressConnectionLimit: 16, connectionTimeout: .seconds(5), threads: 1,
                                            shutdownGracePeriod: .seconds(1))
        let server = HTTPServer(configuration: http, logger: logger.named("management")) { [metrics, readiness] request in
            Self.answer(request, metrics: metrics, readiness: readiness)
        }
        do {
            try server.start()
        } catch {
            throw ConfigurationError(variable: "MANAGEMENT_PORT", problem: "cannot listen on \(configuration.host):\(port): \(error)")
        }
        defer { server.stop() }
        logger.info("management port listening", ["http.host": configuration.host, "http.port": String(server.port)])
        onListening(server.port)
        await Task.sleepUntilCancelled()
    }

    /// The answer to one management request.
    static func answer(_ request: HTTPRequest, metrics: MetricsRegistry, readiness: Readiness) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: [("Allow", "GET, HEAD")])
        }
        switch request.path {
        case "/metrics":
            let text = metrics.render() + ProcessMetrics.render()
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: Array(text.utf8))
        case "/healthz":
            return json(#"{"status":"ok"}"#, status: 200)
        case "/readyz":
            return readinessResponse(readiness)
        default:
            return json(#"{"error":"NOT_FOUND"}"#, status: 404)
        }
    }

    /// `/readyz`'s answer: 200 `{"status":"ready"}`, or 503 naming what is not ready.
    public static func readinessResponse(_ readiness: Readiness) -> HTTPResponse {
        let report = readiness.report
        if report.ready { return json(#"{"status":"ready"}"#, status: 200) }
        // The names are fixed identifiers chosen by the code, never input.
        let failing = report.failing.map { "\"\($0)\"" }.joined(separator: ",")
        return HTTPResponse(status: 503, headers: [("Content-Type", "application/json"), ("Retry-After", "1")],
                            body: Array(#"{"status":"unavailable","failing":[\#(failing)]}"#.utf8))
    }

    private static func json(_ text: String, status: Int) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: Array(text.utf8))
    }
}
