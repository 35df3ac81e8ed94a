import Collections
import Contracts
import Foundation
import HTTPTesting
import Testing
import TestSupport

/// What the gateway refuses before any route runs: a path in another spelling than its route's,
/// and a body announced over 64 KiB. Sent over raw sockets: HTTP clients tidy paths up.
@Suite("Gateway edge: canonical paths and announced sizes")
struct GatewayEdgeTests {
    /// The refresh endpoint, spelt as a client could disguise it.
    static let disguisedRefresh = [
        "//api/auth/refresh", "/api/auth//refresh", "/api/auth/refresh/", "/api/auth/%72efresh", "/api/auth/refresh%2f",
        "/api/./auth/refresh", "/api/x/../auth/refresh",
    ]

    @Test("40 refreshes on disguised paths all get 404 NOT_FOUND, reach no route and spend nothing of the rate limit; the canonical path stays limited")
    func canonicalPaths() async throws {
        _ = try await TestStack.shared.running()
        let gateway = try await StandaloneGateway.start(natsURL: TestEnvironment.natsURL) {
            $0.rateLimitRPS = 1
            $0.rateLimitBurst = 3
        }
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            try await gateway.waitUntilConnected()
            let port = gateway.port
            let paths = (0..<40).map { Self.disguisedRefresh[$0 % Self.disguisedRefresh.count] }
            let disguised = try await BlockingCall.run { try Self.refreshes(on: paths, port: port) }
            for (path, response) in zip(paths, disguised) {
                #expect(response.status == 404, "\(path)")
                #expect(String(decoding: response.body, as: UTF8.self).contains(#""code":"NOT_FOUND""#), "\(path)")
            }
            let metrics = try await RunningStack.send("GET", gateway.managementURL + "/metrics").text
            #expect(!metrics.contains(#"route="/api/auth/refresh""#), "a disguised path reached the route: \(metrics)")
            #expect(!metrics.contains("auth.issuer.refresh"), "a disguised path reached the issuer: \(metrics)")
            #expect(metrics.contains(#"http_requests_total{method="POST",route="unmatched",status="404"} 40"#), "\(metrics)")

            // The whole burst of 3 is still there for the canonical path, and then it is limited.
            let canonical = try await BlockingCall.run { try Self.refreshes(on: Array(repeating: "/api/auth/refresh", count: 5), port: port) }
            // (At 1 request/s a token may come back if the machine is slow between them, so the last two
            // need only show the limit once.)
            #expect(Array(canonical.map(\.status).prefix(3)) == [401, 401, 401])
            #expect(canonical.map(\.status).dropFirst(3).contains(429), "\(canonical.map(\.status))")
        }
    }

    @Test("a Content-Length over 64 KiB gets 413 PAYLOAD_TOO_LARGE at once, before any body is sent, and the connection closes")
    func announcedTooLarge() async throws {
        let stack = try await TestStack.shared.running()
        let port = try #require(URL(string: stack.gatewayURL)?.port)
        let (response, closed) = try await BlockingCall.run {
            // Were the body awaited, this read would give up after 5 s.
            let connection = try RawHTTPConnection(port: port, readTimeoutSeconds: 5)
            try connection.send("POST /api/auth/google-login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                + "Content-Length: 65537\r\n\r\n")
            let response = try connection.readResponse()
            return (response, connection.isClosedByPeer())
        }
        #expect(response.status == 413)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""code":"PAYLOAD_TOO_LARGE""#))
        #expect(response.header("x-request-id") != nil)
        #expect(closed)
    }

    /// POSTs a refresh with a made-up token to each path in turn, on one kept-alive connection.
    private static func refreshes(on paths: [String], port: Int) throws -> [RawHTTPConnection.Response] {
        let connection = try RawHTTPConnection(port: port)
        let body = #"{"refreshToken":"not-a-token"}"#
        return try paths.map { path in
            try connection.send("POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return try connection.readResponse()
        }
    }
}
