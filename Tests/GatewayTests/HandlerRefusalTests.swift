import Contracts
import Foundation
import HTTPServer
import Testing
@testable import Gateway

/// The gateway's handler called in process, without NATS: every refusal it makes before any service
/// is asked, with its status, error code and request ID.
@Suite("The gateway's refusals before any service is asked")
struct HandlerRefusalTests {
    /// No services behind it, and the ended sessions not read: nothing here may get as far as asking.
    // Generating a P-256 key fails only when OpenSSL does.
    private static let gateway = try! InProcessGateway(connected: false, caughtUp: false)

    @Test("every answer carries the caller's sane X-Request-Id, or a new one")
    func requestID() async {
        #expect(await Self.gateway.send("GET", "/nowhere", headers: ["X-Request-Id": "abc-123"]).headers["x-request-id"] == "abc-123")
        let replaced = await Self.gateway.send("GET", "/nowhere", headers: ["X-Request-Id": "has space"]).headers["x-request-id"]
        #expect(replaced != "has space" && replaced?.count == 36)
    }

    @Test("routing: 404 for no such path, 405 with Allow for a wrong method")
    func routing() async {
        #expect(await Self.gateway.send("GET", "/api/nothing").status == 404)
        let wrongMethod = await Self.gateway.send("PUT", "/api/auth/google-login")
        #expect(wrongMethod.status == 405 && wrongMethod.headers["allow"] == "POST")
        #expect(await Self.gateway.send("POST", "/api/auth/sessions/x").headers["allow"] == "DELETE")
    }

    @Test("bodies: 413 too large, 415 not JSON, 400 empty, not JSON, missing or ill-typed field", arguments: [
        ("/api/auth/google-login", nil, "text/plain", 415, "UNSUPPORTED_MEDIA_TYPE"),
        ("/api/auth/google-login", "", nil, 400, "INVALID_REQUEST"),
        ("/api/auth/google-login", "{", nil, 400, "INVALID_REQUEST"),
        ("/api/auth/google-login", #"{"deviceId": "d"}"#, nil, 400, "INVALID_REQUEST"),
        ("/api/auth/apple-login", #"{"identityToken": 5, "deviceId": "d"}"#, nil, 400, "INVALID_REQUEST"),
        ("/api/auth/naver-login", #"{"accessToken": "t", "deviceId": " "}"#, nil, 400, "INVALID_REQUEST"),
        ("/api/auth/kakao-login", #"{"idToken": "t\u0000", "deviceId": "d"}"#, nil, 400, "INVALID_REQUEST"),
        ("/api/auth/refresh", #"{"refreshToken": ""}"#, nil, 400, "INVALID_REQUEST"),
        ("/api/auth/apple/notifications", #"{}"#, nil, 400, "INVALID_REQUEST"),
    ] as [(String, String?, String?, Int, String)])
    func bodies(_ path: String, _ json: String?, _ contentType: String?, _ status: Int, _ code: String) async {
        let answer = await Self.gateway.send("POST", path, headers: contentType.map { ["Content-Type": $0] } ?? [:], json: json ?? "{}")
        #expect(answer.status == status)
        #expect(answer.code == code)
        #expect(answer.headers["cache-control"] == "no-store")
    }

    @Test("a body announced too large is 413 on any route")
    func tooLarge() async {
        let answer = await Self.gateway.send("POST", "/api/auth/refresh", json: "{}", bodyTooLarge: true)
        #expect(answer.status == 413 && answer.code == "PAYLOAD_TOO_LARGE")
    }

    @Test("every member route without a Bearer token, or with another scheme, is 401", arguments: [
        ("GET", "/api/members/me"), ("DELETE", "/api/members/me"), ("POST", "/api/members/me/identities"),
        ("DELETE", "/api/members/me/identities/google"), ("POST", "/api/auth/logout"), ("POST", "/api/auth/logout-all"),
        ("GET", "/api/auth/sessions"), ("DELETE", "/api/auth/sessions/0d3c8b8e-5a51-4c3e-9b7a-1f2b3c4d5e6f"),
    ])
    func unauthenticated(_ method: String, _ path: String) async {
        #expect(await Self.gateway.send(method, path).code == "UNAUTHORIZED")
        #expect(await Self.gateway.send(method, path, headers: ["Authorization": "Basic dTpw"]).status == 401)
        #expect(await Self.gateway.send(method, path, headers: ["Authorization": "Bearer"]).status == 401)
    }

    @Test("/readyz takes only services=all")
    func readyzQuery() async {
        let request = HTTPRequest(method: "GET", path: "/readyz", target: "/readyz?services=some", query: ["services": "some"])
        #expect(await Self.gateway.handler.handle(request).status == 400)
    }
}
