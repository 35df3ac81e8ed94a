import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPClient
import HTTPServer
import Logging
import Synchronization

/// A small HTTP proxy in front of the test stack's gateway: it counts the requests that reach
/// the server (by `METHOD /path`), records what they carried, and answers chosen ones itself,
/// so tests can see exactly what the client sent and make the server say what they need.
final class GatewayProxy: Sendable {
    /// The proxy's base URL; give it to the client instead of the gateway's.
    let url: String
    private let server: HTTPServer
    private let client: HTTPClient
    private let log: ProxyLog

    private init(url: String, server: HTTPServer, client: HTTPClient, log: ProxyLog) {
        self.url = url
        self.server = server
        self.client = client
        self.log = log
    }

    /// Starts a proxy on `port` (a free one by default) that forwards to `upstream`.
    static func start(forwardingTo upstream: String, port: Int = 0) throws -> GatewayProxy {
        let log = ProxyLog()
        let client = HTTPClient(logger: Logger(label: "proxy-client", level: .error))
        let configuration = HTTPServer.Configuration(host: "127.0.0.1", port: port)
        let server = HTTPServer(configuration: configuration, logger: Logger(label: "proxy", level: .error)) { request in
            let key = "\(request.method) \(request.path)"
            if let (canned, delay) = log.record(key, request) {
                if delay > .zero { try? await Task.sleep(for: delay) }
                return canned
            }
            let headers = request.headers.filter { !hopByHop.contains($0.key) }.map { ($0.key, $0.value) }
            do {
                let response = try await client.execute(HTTPClientRequest(
                    url: upstream + request.path, method: request.method, headers: headers,
                    body: request.body.isEmpty ? nil : request.body, timeout: .seconds(30)))
                return HTTPResponse(status: response.status,
                                    headers: response.headers.filter { !hopByHop.contains($0.key) }.map { ($0.key, $0.value) },
                                    body: response.body)
            } catch {
                return HTTPResponse(status: 599, body: Array("proxy: \(error)".utf8))
            }
        }
        try server.start()
        return GatewayProxy(url: "http://127.0.0.1:\(server.port)", server: server, client: client, log: log)
    }

    /// Headers that belong to one hop, not forwarded.
    private static let hopByHop: Set<String> = ["host", "content-length", "connection", "keep-alive", "transfer-encoding", "expect"]

    /// Stops the proxy.
    func stop() {
        server.stop()
        client.shutdown()
    }

    /// How many `METHOD /path` requests reached the proxy.
    func count(_ key: String) -> Int {
        log.state.withLock { $0.counts[key, default: 0] }
    }

    /// The `Authorization` headers of the `METHOD /path` requests, in arrival order.
    func authorizations(_ key: String) -> [String] {
        log.state.withLock { $0.authorizations[key, default: []] }
    }

    /// The bodies of the `METHOD /path` requests, as JSON objects.
    func jsonBodies(_ key: String) -> [[String: Any]] {
        let bodies = log.state.withLock { $0.bodies[key, default: []] }
        return bodies.compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    /// From now on, answers `METHOD /path` with `status` and the error envelope of `code`
    /// (or with `rawBody` as is) after `delay`, instead of forwarding it.
    func answer(_ key: String, status: Int, code: String? = nil, rawBody: String? = nil, headers: [(String, String)] = [],
                delay: Duration = .zero) {
        let body = rawBody ?? #"{"error":{"code":"\#(code ?? "INTERNAL")","message":"Answered by the test proxy."}}"#
        let response = HTTPResponse(status: status, headers: [("Content-Type", rawBody == nil ? "application/json" : "text/html")] + headers,
                                    body: Array(body.utf8))
        log.state.withLock { $0.canned[key] = (response, delay) }
    }

    /// Forwards `METHOD /path` again.
    func forward(_ key: String) {
        log.state.withLock { $0.canned[key] = nil }
    }
}

/// What the proxy saw, shared by its handler and the test.
private final class ProxyLog: Sendable {
    struct State {
        var counts: [String: Int] = [:]
        var authorizations: [String: [String]] = [:]
        var bodies: [String: [[UInt8]]] = [:]
        var canned: [String: (HTTPResponse, Duration)] = [:]
    }

    let state = Mutex(State())

    /// Records a request; returns the canned answer for it and its delay, if any.
    func record(_ key: String, _ request: HTTPRequest) -> (HTTPResponse, Duration)? {
        state.withLock { state in
            state.counts[key, default: 0] += 1
            state.authorizations[key, default: []].append(request.header("authorization") ?? "")
            state.bodies[key, default: []].append(request.body)
            return state.canned[key]
        }
    }
}
