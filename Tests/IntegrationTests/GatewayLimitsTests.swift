import Contracts
import Foundation
import IPAddresses
import Logging
import Messaging
import NATS
import Testing
import TestSupport

/// The gateway's limits and its mapping of service failures: 429 from the per-address rate
/// limit, 503 when a service has no responders, 504 when one hangs. Each test runs its own
/// gateway, on a private nats-server where that matters, so the shared stack is untouched.
@Suite("Gateway limits and failure mapping")
struct GatewayLimitsTests {
    private static let loginBody = Array(#"{"idToken":"x.y.z","deviceId":"d"}"#.utf8)

    @Test("the per-address rate limit answers 429 with Retry-After once the burst is spent, on /api/auth/* only")
    func rateLimit() async throws {
        let stack = try await TestStack.shared.running()
        let natsURL = TestEnvironment.natsURL
        let gateway = try await StandaloneGateway.start(natsURL: natsURL) {
            $0.rateLimitRPS = 1
            $0.rateLimitBurst = 3
        }
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            _ = stack
            try await gateway.waitUntilConnected()
            // All five at once: the limiter decides as they arrive, so a slow machine (each refresh takes a
            // round trip to the issuer) cannot let a token refill between them, as it did one after another.
            let responses = try await withThrowingTaskGroup(of: APIResponse.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        try await RunningStack.send("POST", gateway.url + "/api/auth/refresh",
                                                    headers: [("Content-Type", "application/json")],
                                                    body: Array(#"{"refreshToken":"nope"}"#.utf8))
                    }
                }
                return try await group.reduce(into: [APIResponse]()) { $0.append($1) }
            }
            let statuses = responses.map(\.status).sorted()
            #expect(statuses == [401, 401, 401, 429, 429], "\(statuses)")
            for response in responses where response.status == 429 {
                #expect(response.failure?.code == .rateLimited)
                #expect(Int(response.headers["retry-after"] ?? "") ?? 0 >= 1)
            }
            // Other paths are not limited.
            #expect(try await RunningStack.send("GET", gateway.url + "/healthz").status == 200)
            let metrics = try await RunningStack.send("GET", gateway.managementURL + "/metrics").text
            #expect(metrics.contains("http_rate_limited_total 2"), "\(metrics)")
        }
    }

    @Test("linking an identity asks a provider like a login, so it is rate limited like one")
    func linkRateLimit() async throws {
        let gateway = try await StandaloneGateway.start(natsURL: TestEnvironment.natsURL) {
            $0.rateLimitRPS = 1
            $0.rateLimitBurst = 3
        }
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            try await gateway.waitUntilConnected()
            // All five at once: one after another, a loaded machine let a token refill between them (it
            // failed that way in a full run), as in the login rate-limit test.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        try await RunningStack.send("POST", gateway.url + "/api/members/me/identities",
                                                    headers: [("Content-Type", "application/json"), ("Authorization", "Bearer x.y.z")],
                                                    body: Array(#"{"provider":"GOOGLE","idToken":"x.y.z"}"#.utf8)).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 429 }.count == 2, "\(statuses)")
        }
    }

    @Test("behind a trusted proxy the rate limit counts the client X-Forwarded-For names; otherwise the header is ignored")
    func forwardedFor() async throws {
        let stack = try await TestStack.shared.running()
        _ = stack
        let behindProxy = try await StandaloneGateway.start(natsURL: TestEnvironment.natsURL) {
            $0.rateLimitRPS = 1
            $0.rateLimitBurst = 1
            $0.trustedProxies = [AddressRange("127.0.0.0/8")!, AddressRange("10.0.0.0/8")!]
        }
        let direct = try await StandaloneGateway.start(natsURL: TestEnvironment.natsURL) {
            $0.rateLimitRPS = 1
            $0.rateLimitBurst = 1
        }
        try await withResource((behindProxy, direct), close: { await $0.0.stop(); await $0.1.stop() }) { _ in
            try await behindProxy.waitUntilConnected()
            try await direct.waitUntilConnected()
            func refresh(_ gateway: StandaloneGateway, forwardedFor: String) async throws -> Int {
                try await RunningStack.send("POST", gateway.url + "/api/auth/refresh",
                                            headers: [("Content-Type", "application/json"), ("X-Forwarded-For", forwardedFor)],
                                            body: Array(#"{"refreshToken":"nope"}"#.utf8)).status
            }
            // Each client has its own bucket (one request a second): the rightmost untrusted hop is the
            // client. Each pair is sent back to back, so the bucket has no time to refill between them.
            #expect(try await refresh(behindProxy, forwardedFor: "198.51.100.1") == 401)
            #expect(try await refresh(behindProxy, forwardedFor: "198.51.100.1") == 429)
            #expect(try await refresh(behindProxy, forwardedFor: "198.51.100.2") == 401)
            // A client cannot pick a fresh bucket by claiming an address left of the proxy's entry.
            #expect(try await refresh(behindProxy, forwardedFor: "203.0.113.77, 198.51.100.2") == 429)
            #expect(try await refresh(behindProxy, forwardedFor: "1.1.1.1, 198.51.100.3, 10.0.0.5") == 401)
            #expect(try await refresh(behindProxy, forwardedFor: "198.51.100.3") == 429)
            // Without trusted proxies the header means nothing: one bucket for the one peer.
            #expect(try await refresh(direct, forwardedFor: "198.51.100.1") == 401)
            #expect(try await refresh(direct, forwardedFor: "198.51.100.9") == 429)
        }
    }

    @Test("20 requests from 20 addresses of one IPv6 /64 share one bucket (of 10); another /64 has its own; the prefix is configurable")
    func ipv6Block() async throws {
        let stack = try await TestStack.shared.running()
        _ = stack
        func start(prefix: Int) async throws -> StandaloneGateway {
            try await StandaloneGateway.start(natsURL: TestEnvironment.natsURL) {
                $0.rateLimitRPS = 1
                $0.rateLimitBurst = 10
                $0.rateLimitIPv6Prefix = prefix
                $0.trustedProxies = [AddressRange("127.0.0.0/8")!]
            }
        }
        let byBlock = try await start(prefix: 64)
        let byAddress = try await start(prefix: 128)
        try await withResource((byBlock, byAddress), close: { await $0.0.stop(); await $0.1.stop() }) { _ in
            try await byBlock.waitUntilConnected()
            try await byAddress.waitUntilConnected()
            func refresh(_ gateway: StandaloneGateway, from client: String) async throws -> Int {
                try await RunningStack.send("POST", gateway.url + "/api/auth/refresh",
                                            headers: [("Content-Type", "application/json"), ("X-Forwarded-For", client)],
                                            body: Array(#"{"refreshToken":"nope"}"#.utf8)).status
            }
            // Documentation addresses (RFC 3849), named only in a header: nothing is sent to them.
            let block = (1...20).map { "2001:db8:1:2::\(String($0, radix: 16))" }
            var statuses: [Int] = []
            let started = ContinuousClock.now
            for client in block { statuses.append(try await refresh(byBlock, from: client)) }
            // One bucket for the block: its burst of 10, plus one a second refilled while the requests went out
            // (the bound says nothing should they take ten seconds, which they never come near).
            let refilled = Int((ContinuousClock.now - started).components.seconds) + 1
            #expect(statuses.prefix(10).allSatisfy { $0 == 401 }, "\(statuses)")
            #expect(statuses.filter { $0 == 401 }.count <= 10 + refilled, "\(statuses) in \(refilled) s")
            #expect(statuses.filter { $0 == 429 }.count >= 20 - 10 - refilled, "\(statuses) in \(refilled) s")
            #expect(try await refresh(byBlock, from: "2001:db8:1:3::1") == 401)
            // IPv4 clients are still counted one address each.
            #expect(try await refresh(byBlock, from: "198.51.100.7") == 401)
            var single: [Int] = []
            for client in block { single.append(try await refresh(byAddress, from: client)) }
            #expect(single.allSatisfy { $0 == 401 }, "a /128 prefix counts each address: \(single)")
        }
    }

    @Test("a service with no responders gets 503 SERVICE_UNAVAILABLE with Retry-After, and /readyz says so")
    func noResponders() async throws {
        let nats = try await TestNATSServer.start()
        defer { nats.stop() }
        let gateway = try await StandaloneGateway.start(natsURL: nats.url) { $0.rateLimitRPS = 0 }
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            try await gateway.waitUntilConnected()

            let response = try await RunningStack.send("POST", gateway.url + "/api/auth/google-login",
                                                       headers: [("Content-Type", "application/json")], body: Self.loginBody)
            #expect(response.status == 503, "\(response.text)")
            #expect(response.failure?.code == .serviceUnavailable)
            #expect(response.headers["retry-after"] == "1")
            let ready = try await RunningStack.send("GET", gateway.url + "/readyz?services=all")
            #expect(ready.status == 503)
            #expect(ready.text.contains("\"token-verifier\":\"unavailable\""), "\(ready.text)")
        }
    }

    @Test("a service that hangs gets 504 TIMEOUT after the service timeout, and the metrics count it")
    func hangingService() async throws {
        let nats = try await TestNATSServer.start()
        defer { nats.stop() }
        // A "verifier" that takes requests and never answers.
        let silent = try await NATSConnection.connect(TestIdentities.configuration(url: nats.url, name: "silent-verifier"),
                                                      logger: Logger(label: "silent", level: .critical))
        let subscription = try silent.subscribe(Endpoints.login.subject, queue: QueueGroups.tokenVerifier)
        defer { subscription.unsubscribe() }
        let gateway = try await StandaloneGateway.start(natsURL: nats.url) {
            $0.rateLimitRPS = 0
            $0.serviceTimeout = .seconds(1)
        }
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            try await gateway.waitUntilConnected()

            let started = ContinuousClock.now
            let response = try await RunningStack.send("POST", gateway.url + "/api/auth/google-login",
                                                       headers: [("Content-Type", "application/json")], body: Self.loginBody)
            let elapsed = ContinuousClock.now - started
            #expect(response.status == 504, "\(response.text)")
            #expect(response.failure?.code == .timeout)
            // Verification is idempotent, so the gateway tried twice (one retry) before giving up.
            #expect(elapsed >= .seconds(2) && elapsed < .seconds(8), "\(elapsed)")
            let metrics = try await RunningStack.send("GET", gateway.managementURL + "/metrics").text
            #expect(metrics.contains(#"nats_request_retries_total{error="timeout",subject="auth.verifier.login"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"nats_request_errors_total{error="timeout",subject="auth.verifier.login"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"http_requests_total{method="POST",route="/api/auth/google-login",status="504"} 1"#), "\(metrics)")
        }
    }

    @Test("the metrics count requests by route and status, with latency histograms")
    func metrics() async throws {
        let stack = try await TestStack.shared.running()
        _ = try await stack.get("/api/nothing-here")
        _ = try await stack.get("/healthz")
        #expect(try await stack.get("/metrics").status == 404, "metrics stay off the public port")
        let text = try await RunningStack.send("GET", stack.managementURL + "/metrics").text
        #expect(text.contains("# TYPE http_requests_total counter"))
        #expect(text.contains(#"http_requests_total{method="GET",route="unmatched",status="404"}"#))
        #expect(text.contains(#"http_requests_total{method="GET",route="/healthz",status="200"}"#))
        #expect(text.contains(#"http_request_duration_seconds_bucket{route="/healthz",le="+Inf"}"#))
        #expect(text.contains("nats_request_duration_seconds_count"))
        // The figures every exporter gives.
        for name in ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds", "process_start_time_seconds"] {
            let value = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
            #expect((value ?? 0) > 0, "\(name) in \(text)")
        }
    }

    @Test("the OpenAPI description is served and names every route")
    func openAPI() async throws {
        let stack = try await TestStack.shared.running()
        let response = try await stack.get("/openapi.yaml")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/yaml")
        for path in ["/api/auth/google-login", "/api/auth/refresh", "/api/members/me", "/api/auth/sessions/{sessionId}",
                     "/api/members/me/identities/{provider}", "/api/auth/apple/notifications", "/.well-known/jwks.json"] {
            #expect(response.text.contains("  \(path):"), "missing \(path)")
        }
    }
}
