import Contracts
import Foundation
import HTTPServer
import Logging
import Testing
@testable import Gateway

/// The order of the gateway's middleware, pinned by what it does: each refusal is logged, counted under
/// its route and carries the headers; the canonical path comes before the route match and the limits,
/// the body limit before the rate limit, the route last, with the request's ID. Swapping two entries of
/// ``APIHandler/middleware`` fails one of these.
@Suite("The gateway's middleware, in order")
struct MiddlewareOrderTests {
    /// The refresh route's path, rate-limited as every `/api/auth/` path is.
    private static let refresh = "/api/auth/refresh"
    /// The refresh route's path in a spelling that MHD decodes to ``refresh`` but no route takes (`%72` is `r`).
    private static let refreshMisspelt = "/api/auth/%72efresh"
    private static let refreshBody = #"{"refreshToken": "r"}"#

    @Test("the entries are those docs/architecture.md lists, in its order")
    func listed() throws {
        let names = APIHandler.middleware.map(\.name)
        #expect(names == ["logging", "metrics", "no-store", "request ID", "canonical path", "route match", "body limit", "rate limit"])
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let architecture = try String(contentsOf: root.appending(path: "docs/architecture.md"), encoding: .utf8)
        let listed = names.map { "*\($0)*" }.joined(separator: ", ")
        // Read as prose: a list wrapped over lines still lists.
        let documented = architecture.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains(listed)
        #expect(documented, "docs/architecture.md lists the middleware as \(listed)")
    }

    @Test("every refusal, whichever entry or the route made it, is logged, counted under its route and carries X-Request-Id and Cache-Control",
          arguments: [
              // The canonical path: no route, whatever MHD decoded.
              Refusal(path: "/api/auth/refresh", target: "/api/auth/%72efresh", status: 404, code: "NOT_FOUND", route: "unmatched"),
              // The body limit, under the route matched before it.
              Refusal(path: "/api/auth/refresh", bodyTooLarge: true, status: 413, code: "PAYLOAD_TOO_LARGE", route: "/api/auth/refresh"),
              Refusal(path: "/api/auth/nothing", bodyTooLarge: true, status: 413, code: "PAYLOAD_TOO_LARGE", route: "unmatched"),
              // The route: none fits, or not with this method.
              Refusal(path: "/api/nothing", status: 404, code: "NOT_FOUND", route: "unmatched"),
              Refusal(method: "GET", path: "/api/auth/refresh", status: 405, code: "METHOD_NOT_ALLOWED", route: "unmatched"),
              // The route itself, with no services behind it.
              Refusal(path: "/api/auth/refresh", status: 503, code: "SERVICE_UNAVAILABLE", route: "/api/auth/refresh"),
          ])
    func refusals(_ refusal: Refusal) async throws {
        let logs = LogSink.capturing()
        let gateway = try InProcessGateway(connected: false, logs: logs)
        let answer = await gateway.send(refusal.method, refusal.path, target: refusal.target, json: Self.refreshBody,
                                        bodyTooLarge: refusal.bodyTooLarge)
        answer.expectRefusal(refusal.status, refusal.code)
        Self.expectCountedAndLogged(gateway, logs, method: refusal.method, route: refusal.route, status: refusal.status)
    }

    @Test("a 429 is logged, counted under its route and carries X-Request-Id and Cache-Control; the route is not asked")
    func rateLimited() async throws {
        let logs = LogSink.capturing()
        let gateway = try InProcessGateway(rateLimitBurst: 1, logs: logs)
        let answer = await Self.sendUntilRateLimited(gateway)
        answer.expectRefusal(429, "RATE_LIMITED")
        #expect(answer.headers["retry-after"] != nil)
        Self.expectCountedAndLogged(gateway, logs, method: "POST", route: Self.refresh, status: 429)
        let asked = Double(gateway.services?.calls(to: Endpoints.refreshTokens).count ?? 0)
        #expect(asked >= 1, "the burst's request reached the route")
        #expect(asked == gateway.handler.metrics.counterValue("http_requests_total", ["route": Self.refresh, "method": "POST", "status": "503"]),
                "only the requests let through reached the route")
    }

    @Test("a path not in its canonical spelling is refused before the body limit, the route match and the rate limit")
    func canonicalPathFirst() async throws {
        let gateway = try InProcessGateway(rateLimitBurst: 1)
        let tooLarge = await gateway.send("POST", Self.refresh, target: Self.refreshMisspelt, json: Self.refreshBody, bodyTooLarge: true)
        tooLarge.expectRefusal(404, "NOT_FOUND")
        for _ in 0..<3 {
            await gateway.send("POST", Self.refresh, target: Self.refreshMisspelt, json: Self.refreshBody).expectRefusal(404, "NOT_FOUND")
        }
        #expect(gateway.handler.metrics.counterValue("http_rate_limited_total") == 0)
        // The token is still there: the first request spelt canonically reaches the route.
        await gateway.send("POST", Self.refresh, json: Self.refreshBody).expectRefusal(503, "SERVICE_UNAVAILABLE")
        #expect(gateway.services?.calls(to: Endpoints.refreshTokens).count == 1)
    }

    @Test("a body announced too large is refused before the rate limit takes a token")
    func bodyLimitBeforeRateLimit() async throws {
        let gateway = try InProcessGateway(rateLimitBurst: 1)
        for _ in 0..<3 {
            await gateway.send("POST", Self.refresh, json: Self.refreshBody, bodyTooLarge: true).expectRefusal(413, "PAYLOAD_TOO_LARGE")
        }
        #expect(gateway.handler.metrics.counterValue("http_rate_limited_total") == 0)
        await gateway.send("POST", Self.refresh, json: Self.refreshBody).expectRefusal(503, "SERVICE_UNAVAILABLE")
        #expect(gateway.services?.calls(to: Endpoints.refreshTokens).count == 1)
    }

    @Test("the route runs last, with the request's ID as the task's, and its answer gets X-Request-Id, then Cache-Control")
    func routeLast() async throws {
        let gateway = try InProcessGateway(rateLimitBurst: 1)
        let request = HTTPRequest(method: "POST", path: Self.refresh, headers: ["X-Request-Id": "route-last", "Content-Type": "application/json"],
                                  body: Array(Self.refreshBody.utf8))
        let response = await gateway.handler.handle(request)
        #expect(response.status == 503)
        #expect(gateway.services?.calls(to: Endpoints.refreshTokens).map(\.requestID) == ["route-last"])
        // The order the headers always had: the route's own, then the request's ID, then the cache policy.
        #expect(response.headers.suffix(2).map(\.0) == [RequestID.header, "Cache-Control"])
    }

    /// One refusal and where it is counted.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var method = "POST"
        let path: String
        var target: String?
        var bodyTooLarge = false
        let status: Int
        let code: String
        /// The `route` label it is counted and logged under.
        let route: String

        var testDescription: String { "\(status) \(method) \(target ?? path)\(bodyTooLarge ? " (too large)" : "")" }
    }

    /// Sends refreshes until one is refused by the rate limit (a bucket of one refills in a second, so one of
    /// the first few is, unless the machine stalls for a second between each).
    private static func sendUntilRateLimited(_ gateway: InProcessGateway) async -> InProcessGateway.Answer {
        var answer = await gateway.send("POST", refresh, json: refreshBody)
        for _ in 0..<20 where answer.status != 429 {
            answer = await gateway.send("POST", refresh, json: refreshBody)
        }
        return answer
    }

    /// Expects the one request sent under `route` with `status` to be counted once and logged once as answered.
    private static func expectCountedAndLogged(_ gateway: InProcessGateway, _ logs: LogSink, method: String, route: String, status: Int,
                                               sourceLocation: SourceLocation = #_sourceLocation) {
        let counted = gateway.handler.metrics.counterValue("http_requests_total", ["route": route, "method": method, "status": String(status)])
        #expect(counted == 1, "counted under \(route)", sourceLocation: sourceLocation)
        let answered = logs.lines.filter {
            $0.contains(#""message":"request answered""#) && $0.contains(#""http.path":"\#(route)""#)
                && $0.contains(#""http.status":"\#(status)""#)
        }
        #expect(answered.count == 1, "logged under \(route): \(logs.lines)", sourceLocation: sourceLocation)
    }
}
