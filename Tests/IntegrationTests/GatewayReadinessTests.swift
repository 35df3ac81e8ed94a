import Contracts
import Foundation
import JOSE
import JSON
import Logging
import Messaging
import NATS
import Testing
import TestSupport

/// The gateway's `/readyz` answers for this gateway alone: a sick downstream service must not take
/// every gateway out of its load balancer.
@Suite("Gateway readiness")
struct GatewayReadinessTests {
    @Test("with NATS not answering, the API port opens after its 5 s wait and answers 503 itself, not ready")
    func withoutNATS() async throws {
        let closed = try TestNATSServer.freePort()
        let starting = ContinuousClock.now
        let gateway = try await StandaloneGateway.start(natsURL: "nats://127.0.0.1:\(closed)")
        let waited = ContinuousClock.now - starting
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            #expect(waited >= .seconds(5), "listened after \(waited)")
            let refresh = try await RunningStack.send("POST", gateway.url + "/api/auth/refresh", headers: [("Content-Type", "application/json")],
                                                      body: Array(#"{"refreshToken": "r"}"#.utf8))
            #expect(refresh.status == 503, "\(refresh.text)")
            let ready = try await RunningStack.send("GET", gateway.managementURL + "/readyz")
            #expect(ready.status == 503 && ready.text.contains("nats"), "\(ready.text)")
        }
    }

    @Test("ready once it has the issuer's keys and the ended sessions, whether or not the verifier answers; ?services=all tells the rest")
    func ownReadiness() async throws {
        // No issuer at first: neither its keys nor the ended sessions can be read.
        let nats = try await TestNATSServer.start()
        defer { nats.stop() }
        let gateway = try await StandaloneGateway.start(natsURL: nats.url)
        try await withResource(gateway, close: { await $0.stop() }) { gateway in
            try await gateway.waitUntilConnected()

            // Connected, but no issuer has answered for its keys yet.
            let before = try await RunningStack.send("GET", gateway.managementURL + "/readyz")
            #expect(before.status == 503)
            #expect(before.text.contains("access-token keys"), "\(before.text)")
            #expect(try await RunningStack.send("GET", gateway.managementURL + "/healthz").status == 200)

            // An issuer answers for its keys and its ended sessions (none); no verifier or member-service exists.
            let connection = try await NATSConnection.connect(TestIdentities.configuration(url: nats.url, name: "keys-only-issuer"), logger: Logger(label: "test", level: .error))
            let keys = Responder(connection: connection, endpoint: Endpoints.accessTokenKeys, queue: QueueGroups.tokenIssuer,
                                 logger: Logger(label: "test", level: .error)) { _ in
                try AccessTokenKeys(jwks: JSONValue(encoding: JWKSet(keys: [])), issuer: TestStack.tokenIssuer, audience: TestStack.tokenAudience)
            }
            let ended = Responder(connection: connection, endpoint: Endpoints.endedSessions, queue: QueueGroups.tokenIssuer,
                                  logger: Logger(label: "test", level: .error)) { _ in EndedSessionsPage(sessions: [], next: nil) }
            let serving = Task { try await keys.run() }
            let servingEnded = Task { try await ended.run() }
            defer {
                serving.cancel()
                servingEnded.cancel()
                Task { await connection.drainAndClose() }
            }
            let ready = await eventually(timeout: .seconds(10)) {
                (try? await RunningStack.send("GET", gateway.managementURL + "/readyz"))?.status == 200
            }
            #expect(ready)
            #expect(try await RunningStack.send("GET", gateway.url + "/readyz").status == 200)
            let everything = try await RunningStack.send("GET", gateway.url + "/readyz?services=all")
            #expect(everything.status == 503)
            #expect(everything.text.contains("\"token-verifier\":\"unavailable\""), "\(everything.text)")

            // Anyone may ask, so a burst of asks shares one round of pings.
            let subject = Endpoints.ping(QueueGroups.tokenVerifier).subject
            func failedPings() async throws -> Double {
                let metrics = try await RunningStack.send("GET", gateway.managementURL + "/metrics").text
                return metrics.split(separator: "\n").filter { $0.hasPrefix("nats_request_errors_total{") && $0.contains(subject) }
                    .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
            }
            let pingsBefore = try await failedPings()
            #expect(pingsBefore >= 1)
            let statuses = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { (try? await RunningStack.send("GET", gateway.url + "/readyz?services=all"))?.status ?? 0 } }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 503, count: 20), "\(statuses)")
            let burst = try await failedPings() - pingsBefore
            #expect(burst <= 2, "\(burst) more failed pings of the verifier for 20 asks")
            let bad = try await RunningStack.send("GET", gateway.url + "/readyz?services=some")
            #expect(bad.status == 400)
            #expect(bad.failure?.code == .invalidRequest)
        }
    }
}
