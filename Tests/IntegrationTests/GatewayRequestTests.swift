import Contracts
import Foundation
import Testing
import TestSupport

/// The gateway's handling of the request itself: bodies, content types, routes, request IDs,
/// Bearer tokens and health endpoints.
@Suite("Gateway request handling")
struct GatewayRequestTests {
    @Test("a missing or ill-typed field gets 400 naming it", arguments: [
        (#"{"deviceId":"d"}"#, "idToken"),
        (#"{"idToken":"t"}"#, "deviceId"),
        (#"{"idToken":5,"deviceId":"d"}"#, "idToken"),
        (#"{"idToken":"t","deviceId":null}"#, "deviceId"),
        (#"{"idToken":"t","deviceId":"   "}"#, "deviceId"),
        (#"{"idToken":"t","deviceId":"d","nonce":[1]}"#, "nonce"),
        (#"[1,2]"#, "object"),
        (#"{"idToken":"#, "JSON"),
    ])
    func invalidBodies(_ body: String, _ named: String) async throws {
        let stack = try await TestStack.shared.running()
        let response = try await stack.post("/api/auth/google-login", body: Array(body.utf8))
        #expect(response.status == 400, "body: \(response.text)")
        #expect(response.failure?.code == .invalidRequest)
        #expect(response.failure?.message.contains(named) == true, "message: \(response.failure?.message ?? "")")
    }

    @Test("a body without Content-Type: application/json gets 415")
    func unsupportedMediaType() async throws {
        let stack = try await TestStack.shared.running()
        let response = try await stack.post("/api/auth/google-login", body: Array(#"{"idToken":"t","deviceId":"d"}"#.utf8),
                                            contentType: "text/plain")
        #expect(response.status == 415)
        #expect(response.failure?.code == .unsupportedMediaType)
    }

    @Test("a body over 64 KiB gets 413")
    func payloadTooLarge() async throws {
        let stack = try await TestStack.shared.running()
        let big = #"{"idToken":""# + String(repeating: "a", count: 70_000) + #"","deviceId":"d"}"#
        let response = try await stack.post("/api/auth/google-login", body: Array(big.utf8))
        #expect(response.status == 413)
        #expect(response.failure?.code == .payloadTooLarge)
    }

    @Test("unknown paths get 404 and wrong methods 405, in the envelope")
    func routes() async throws {
        let stack = try await TestStack.shared.running()
        let missing = try await stack.get("/api/nothing-here")
        #expect(missing.status == 404)
        #expect(missing.failure?.code == .notFound)
        let wrongMethod = try await stack.get("/api/auth/google-login")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.failure?.code == .methodNotAllowed)
        #expect(wrongMethod.headers["allow"] == "POST")
    }

    @Test("a control character in a string field gets 400 naming the field, and no member is made", arguments: ["\u{0}", "\n", "\u{1B}[2J", "\u{7F}"])
    func controlCharacters(_ bad: String) async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject("control")
        let response = try await stack.googleLogin(sub: sub, deviceId: "device\(bad)1")
        #expect(response.status == 400, "\(response.text)")
        #expect(response.failure?.code == .invalidRequest)
        #expect(response.failure?.message.contains("deviceId") == true, "\(response.text)")
        #expect(try await stack.rows("SELECT count(*)::text AS n FROM member.identities WHERE provider_user_id = \(sub)").first?["n"] == "0")
    }

    @Test("answers with tokens or personal data carry Cache-Control: no-store")
    func noStore() async throws {
        let stack = try await TestStack.shared.running()
        let login = try await stack.googleLogin(sub: RunningStack.uniqueSubject("no-store"))
        #expect(login.status == 200)
        #expect(login.headers["cache-control"] == "no-store")
        let access = try login.data(LoginResponse.self).accessToken
        let me = try await stack.get("/api/members/me", bearer: access)
        #expect(me.status == 200)
        #expect(me.headers["cache-control"] == "no-store")
        // The public key set stays cacheable.
        #expect(try await stack.get("/.well-known/jwks.json").headers["cache-control"] == "public, max-age=300")
    }

    @Test("made-up methods do not make up metric series: they are counted as OTHER")
    func methodLabels() async throws {
        let stack = try await TestStack.shared.running()
        let methods = (0..<30).map { _ in "M\(UUID().uuidString.prefix(8).uppercased())" }
        for method in methods {
            _ = try await RunningStack.send(method, stack.gatewayURL + "/api/members/me")
        }
        let metrics = try await RunningStack.send("GET", stack.managementURL + "/metrics").text
        #expect(!methods.contains { metrics.contains($0) }, "a made-up method became a label")
        #expect(metrics.contains(#"method="OTHER""#))
    }

    @Test("every answer carries X-Request-Id: the caller's, or a new one")
    func requestID() async throws {
        let stack = try await TestStack.shared.running()
        let echoed = try await stack.get("/healthz", headers: [("X-Request-Id", "abc-123")])
        #expect(echoed.headers["x-request-id"] == "abc-123")
        let fresh = try await stack.get("/api/nothing-here")
        #expect((fresh.headers["x-request-id"]?.count ?? 0) >= 16)
    }

    @Test("members/me refuses a missing, malformed or foreign Bearer token with 401")
    func unauthorized() async throws {
        let stack = try await TestStack.shared.running()
        let none = try await stack.get("/api/members/me")
        #expect(none.status == 401)
        #expect(none.failure?.code == .unauthorized)
        let garbage = try await stack.get("/api/members/me", bearer: "not.a.token")
        #expect(garbage.status == 401)
        #expect(garbage.failure?.code == .unauthorized)
        // A provider's ID token is not a service access token.
        let idToken = try await stack.googleToken(sub: RunningStack.uniqueSubject())
        let foreign = try await stack.get("/api/members/me", bearer: idToken)
        #expect(foreign.status == 401)
        #expect(foreign.failure?.code == .unauthorized)
    }

    @Test("healthz and readyz answer 200 while everything runs")
    func health() async throws {
        let stack = try await TestStack.shared.running()
        #expect(try await stack.get("/healthz").status == 200)
        let ready = try await stack.get("/readyz")
        #expect(ready.status == 200, "body: \(ready.text)")
    }
}
