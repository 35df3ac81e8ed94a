import Foundation
import Testing
import TestSupport

/// The executables as a deployment runs them: the management port, readiness, and SIGTERM.
@Suite("Service processes: management port, readiness and SIGTERM", .serialized)
struct ServiceProcessTests {
    static let services = ["gateway", "token-verifier", "member-service", "token-issuer"]

    @Test("SIGTERM while a service still waits for PostgreSQL or NATS stops it within two seconds", arguments: services)
    func stopWhileWaiting(_ service: String) async throws {
        // Nothing listens on these ports: the service waits for its database (if any), then for NATS.
        let closed = try TestNATSServer.freePort()
        try await withService(service, environment: [
            "NATS_URL": "nats://127.0.0.1:\(closed)",
            "DATABASE_URL": "postgres://auth:auth@127.0.0.1:\(closed)/auth",
            "GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": String(try TestNATSServer.freePort()),
            "LOG_LEVEL": "error",
        ]) { process, base in
            // The management port answers while the service waits; it is alive, not ready.
            let alive = await answers(base + "/healthz", within: .seconds(20))
            #expect(alive, "\(service): \(process.errorOutput)")
            let ready = try await RunningStack.send("GET", base + "/readyz")
            #expect(ready.status == 503, "\(ready.text)")

            await expectQuickStop(process, service)
        }
    }

    @Test("with JetStream off (NATS up) a service is ready and serves while its events wait for the stream; SIGTERM stops it within two seconds",
          arguments: ["token-verifier", "member-service", "token-issuer"])
    func stopWhileWaitingForJetStream(_ service: String) async throws {
        // Warnings, so the test sees when the stream set-up has begun to wait.
        try await withPrivateService(service, jetStream: false, logLevel: "warning") { process, base in
            let alive = await answers(base + "/healthz", within: .seconds(20))
            #expect(alive, "\(service): \(process.errorOutput)")
            // Connected and migrated, the service's outbox or consumers now wait in the stream set-up for
            // JetStream: the state under test, reached when it says so.
            let waiting = await eventually(timeout: .seconds(20)) { process.errorOutput.contains("JetStream not ready, retrying") }
            #expect(waiting, "\(service) never waited for JetStream: \(process.errorOutput)")
            // Its endpoints do not wait: logins go on while JetStream is down (an outbox keeps the events).
            let ready = await answers(base + "/readyz", within: .seconds(10))
            #expect(ready, "\(service) is not ready without JetStream: \(process.errorOutput)")

            await expectQuickStop(process, service)
        }
    }

    @Test("a running service is ready on its management port, shows its process figures, and stops cleanly on SIGTERM",
          arguments: ["token-verifier", "member-service", "token-issuer"])
    func readyAndStopped(_ service: String) async throws {
        try await withPrivateService(service, jetStream: true, logLevel: "error") { process, base in
            let ready = await answers(base + "/readyz", within: .seconds(30))
            #expect(ready, "\(service): \(process.errorOutput)")

            let metrics = try await RunningStack.send("GET", base + "/metrics")
            #expect(metrics.status == 200)
            for name in ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds", "process_start_time_seconds"] {
                let value = metrics.text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
                #expect((value ?? 0) > 0, "\(name) in \(metrics.text)")
            }
            #expect(try await RunningStack.send("GET", base + "/nothing").status == 404)
            #expect(try await RunningStack.send("POST", base + "/readyz").status == 405)

            process.terminate()
            let status = await process.waitForExit(timeout: .seconds(15))
            #expect(status == 0, "\(service) exit status \(String(describing: status)): \(process.errorOutput)")
        }
    }

    /// Starts `service`'s executable with `environment`, its bus identity and a management port of its own,
    /// runs `body` with the process and the management port's base URL, then kills the process if it still runs.
    private func withService(_ service: String, environment: [String: String],
                             _ body: (ServiceProcess, String) async throws -> Void) async throws {
        let management = try TestNATSServer.freePort()
        let process = try await ServiceProcess.start(service, environment: environment
            .merging(["MANAGEMENT_HOST": "127.0.0.1", "MANAGEMENT_PORT": String(management)]) { $1 }
            .merging(TestIdentities.environment(for: service)) { $1 })
        defer { process.kill() }
        try await body(process, "http://127.0.0.1:\(management)")
    }

    /// ``withService(_:environment:_:)`` on a NATS server of its own (so this replica never takes requests
    /// meant for the shared stack's services) and a fresh database as the service's role.
    private func withPrivateService(_ service: String, jetStream: Bool, logLevel: String,
                                    _ body: (ServiceProcess, String) async throws -> Void) async throws {
        let nats = try await TestNATSServer.start(jetStream: jetStream)
        defer { nats.stop() }
        let database = try await TestStack.freshDatabase()
        try await withService(service, environment: [
            "NATS_URL": nats.url, "DATABASE_URL": TestStack.serviceURL(database, service == "token-issuer" ? .tokenIssuer : .memberService),
            "LOG_LEVEL": logLevel,
        ], body)
    }

    /// Whether a GET of `url` answers 200 within `timeout`.
    private func answers(_ url: String, within timeout: Duration) async -> Bool {
        await eventually(timeout: timeout) { (try? await RunningStack.send("GET", url))?.status == 200 }
    }

    /// Sends SIGTERM and expects `process` to exit with status 0 within two seconds.
    private func expectQuickStop(_ process: ServiceProcess, _ service: String) async {
        let stopping = ContinuousClock.now
        process.terminate()
        let status = await process.waitForExit(timeout: .seconds(10))
        let elapsed = ContinuousClock.now - stopping
        #expect(status == 0, "\(service) exit status \(String(describing: status)): \(process.errorOutput)")
        #expect(elapsed < .seconds(2), "\(service) took \(elapsed) to stop")
    }
}
