import Contracts
import Foundation
import HTTPAPI
import HTTPServer
import Logging
import Metrics

/// Answers every request of the admin port (docs/operations.md, Admin API; `Resources/openapi.json`), in order: the
/// request's ID (the caller's `X-Request-Id` when sane, else a new one) and `Cache-Control: no-store` on
/// every answer; 404 for a path in any other spelling than the canonical one; 401 without an admin's
/// token (every path, `openapi.json` included: nothing here is public); then the route (404 for an
/// unknown path, 405 with `Allow` for another method), 413 for a body over the limit, and the route itself.
final class AdminHandler: Sendable {
    let actions: AdminActions
    let admins: @Sendable () -> AdminTokens
    let maxExportRecords: Int
    let logger: Logger
    let metrics: MetricsRegistry

    init(actions: AdminActions, admins: @escaping @Sendable () -> AdminTokens, maxExportRecords: Int, logger: Logger,
         metrics: MetricsRegistry) {
        self.actions = actions
        self.admins = admins
        self.maxExportRecords = maxExportRecords
        self.logger = logger
        self.metrics = metrics
        metrics.describeCounter("http_requests_total", "HTTP requests answered, by route, method and status.")
        metrics.describeCounter("admin_unauthorized_total", "Admin requests refused for want of an admin's token.")
    }

    /// One request as a route sees it: the HTTP request, the admin, the request's ID and the path parameters.
    struct Context: Sendable {
        let request: HTTPRequest
        let caller: AdminActions.Caller
        let parameters: [String: String]

        func parameter(_ name: String) -> String { parameters[name] ?? "" }
        func query(_ name: String) -> String? { request.query[name] }
    }

    /// One route: a method and path pattern (`{name}` matches one segment).
    struct Route: Sendable {
        let method: String
        let segments: [String]
        let pattern: String
        let handle: @Sendable (AdminHandler, Context) async throws(ServiceFailure) -> HTTPResponse

        init(_ method: String, _ path: String, _ handle: @escaping @Sendable (AdminHandler, Context) async throws(ServiceFailure) -> HTTPResponse) {
            self.method = method
            self.segments = path.split(separator: "/").map(String.init)
            self.pattern = path
            self.handle = handle
        }
    }

    /// Answers `request`. Every answer carries `X-Request-Id` and `Cache-Control: no-store`.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let id = RequestID.from(request.header(RequestID.header))
        var route = "unmatched"
        var response = await RequestID.$current.withValue(id) {
            await answer(request, id: id, route: &route)
        }
        response.headers.append((RequestID.header, id.value))
        response.headers.append(("Cache-Control", "no-store"))
        let method = ["GET", "HEAD", "POST", "DELETE"].contains(request.method) ? request.method : "OTHER"
        metrics.increment("http_requests_total", ["route": route, "method": method, "status": String(response.status)])
        if response.status >= 500 {
            logger.with(id).warning("request failed", ["http.path": route, "http.status": String(response.status)])
        }
        return response
    }

    private func answer(_ request: HTTPRequest, id: RequestID, route label: inout String) async -> HTTPResponse {
        guard request.hasCanonicalPath else { return .failure(ServiceFailure(.notFound, "No such endpoint.")) }
        guard let admin = authenticate(request) else {
            // Told, with where from (never what was presented), so that a guessed or revoked token in use shows.
            logger.with(id).warning("admin request refused: no admin's token", [
                "client.address": request.remoteAddress, "http.method": String(request.method.prefix(16)),
                "token.sent": String(request.header("authorization") != nil)])
            metrics.increment("admin_unauthorized_total")
            var response = HTTPResponse.failure(ServiceFailure(.unauthorized, "Send an admin token as Authorization: Bearer <token>."))
            response.headers.append(("WWW-Authenticate", "Bearer"))
            return response
        }
        let (matched, parameters, allowed) = Self.match(request)
        guard let route = matched else {
            guard !allowed.isEmpty else { return .failure(ServiceFailure(.notFound, "No such endpoint.")) }
            var response = HTTPResponse.failure(ServiceFailure(.methodNotAllowed,
                                                               "\(request.method) is not allowed here; use \(allowed.joined(separator: ", "))."))
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return response
        }
        label = route.pattern
        guard !request.bodyTooLarge else { return .failure(RequestBody.tooLarge) }
        let context = Context(request: request, caller: AdminActions.Caller(admin: admin, requestId: id.value), parameters: parameters)
        do throws(ServiceFailure) {
            return try await route.handle(self, context)
        } catch {
            return .failure(error)
        }
    }

    /// The admin whose token the request's `Authorization: Bearer` carries, or nil.
    private func authenticate(_ request: HTTPRequest) -> String? {
        guard let header = request.header("authorization") else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingASCIISpaces()
        guard !token.isEmpty, token.utf8.count <= 1_024 else { return nil }
        return admins().admin(presenting: token)
    }

    /// The route of the request's path and method with its parameters; when none fits, the methods its path takes.
    static func match(_ request: HTTPRequest) -> (Route?, [String: String], [String]) {
        let segments = request.path.split(separator: "/").map(String.init)
        var allowed: [String] = []
        for route in routes where route.segments.count == segments.count {
            var parameters: [String: String] = [:]
            var matches = true
            for (pattern, segment) in zip(route.segments, segments) {
                if pattern.hasPrefix("{") {
                    parameters[String(pattern.dropFirst().dropLast())] = segment
                } else if pattern != segment {
                    matches = false
                    break
                }
            }
            guard matches else { continue }
            if route.method == request.method || (route.method == "GET" && request.method == "HEAD") {
                return (route, parameters, [])
            }
            allowed.append(route.method)
        }
        return (nil, [:], allowed)
    }
}
