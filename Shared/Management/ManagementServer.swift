import HTTPServer
import Logging
import Metrics
import Runtime

/// A service's management port: `/metrics` (its registry and the `process_*` figures), `/healthz`
/// (the process runs) and `/readyz` (it can serve). Kept off the public port.
public struct ManagementServer: Sendable {
    private let configuration: ManagementConfiguration
    private let metrics: MetricsRegistry
    private let readiness: Readiness
    private let logger: Logger

    /// A management server for `metrics` and `readiness`; nothing listens until ``serving(onListening:_:)``.
    public init(configuration: ManagementConfiguration, metrics: MetricsRegistry, readiness: Readiness, logger: Logger) {
        self.configuration = configuration
        self.metrics = metrics
        self.readiness = readiness
        self.logger = logger
    }

    /// Serves the management port (when configured) while `body` runs, from before the process connects to
    /// anything until it has stopped. `/readyz` turns 503 the moment the calling task is cancelled (SIGTERM).
    public func serving(onListening: @Sendable (Int) -> Void = { _ in },
                        _ body: @Sendable () async throws -> Void) async throws {
        var server: HTTPServer?
        if let port = configuration.port {
            let http = HTTPServer.Configuration(host: configuration.host, port: port, maxBodySize: 0, connectionLimit: 64,
                                                perAddressConnectionLimit: 16, connectionTimeout: .seconds(5), threads: 1,
                                                shutdownGracePeriod: .seconds(1))
            let started = HTTPServer(configuration: http, logger: logger.named("management")) { [metrics, readiness] request in
                Self.answer(request, metrics: metrics, readiness: readiness)
            }
            do {
                try started.start()
            } catch {
                throw ConfigurationError(variable: "MANAGEMENT_PORT", problem: "cannot listen on \(configuration.host):\(port): \(error)")
            }
            logger.info("management port listening", ["http.host": configuration.host, "http.port": String(started.port)])
            onListening(started.port)
            server = started
        }
        defer { server?.stop() }
        let readiness = self.readiness
        try await withTaskCancellationHandler {
            try await body()
        } onCancel: {
            readiness.stopping()
        }
    }

    /// A NATS service's start: `body` runs with a readiness and a registry of its own behind the
    /// management port (when configured), which serves from before the service connects to anything.
    public static func serving(_ configuration: ManagementConfiguration, logger: Logger,
                               _ body: @Sendable (Readiness, MetricsRegistry) async throws -> Void) async throws {
        let readiness = Readiness()
        let metrics = MetricsRegistry()
        let server = ManagementServer(configuration: configuration, metrics: metrics, readiness: readiness, logger: logger)
        try await server.serving { try await body(readiness, metrics) }
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
