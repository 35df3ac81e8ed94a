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
        let management = try TestNATSServer.freePort()
        let process = try await ServiceProcess.start(service, environment: [
            "NATS_URL": "nats://127.0.0.1:\(closed)",
            "DATABASE_URL": "postgres://auth:auth@127.0.0.1:\(closed)/auth",
            "GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": String(try TestNATSServer.freePort()),
            "MANAGEMENT_HOST": "127.0.0.1", "MANAGEMENT_PORT": String(management),
            "LOG_LEVEL": "error",
        ].merging(TestIdentities.environment(for: service)) { $1 })
        defer { process.kill() }
        let base = "http://127.0.0.1:\(management)"
        // The management port answers while the service waits; it is alive, not ready.
        let alive = await eventually(timeout: .seconds(20)) {
            (try? await RunningStack.send("GET", base + "/healthz"))?.status == 200
        }
        #expect(alive, "\(service): \(process.errorOutput)")
        let ready = try await RunningStack.send("GET", base + "/readyz")
        #expect(ready.status == 503, "\(ready.text)")

        let stopping = ContinuousClock.now
        process.terminate()
        let status = await process.waitForExit(timeout: .seconds(10))
        let elapsed = ContinuousClock.now - stopping
        #expect(status == 0, "\(service) exit status \(String(describing: status)): \(process.errorOutput)")
        #expect(elapsed < .seconds(2), "\(service) took \(elapsed) to stop")
    }

    @Test("with JetStream off (NATS up) a service is ready and serves while its events wait for the stream; SIGTERM stops it within two seconds",
          arguments: ["token-verifier", "member-service", "token-issuer"])
    func stopWhileWaitingForJetStream(_ service: String) async throws {
        let nats = try await TestNATSServer.start(jetStream: false)
        defer { nats.stop() }
        let database = try await TestStack.freshDatabase()
        let management = try TestNATSServer.freePort()
        let process = try await ServiceProcess.start(service, environment: [
            "NATS_URL": nats.url, "DATABASE_URL": TestStack.serviceURL(database, service == "token-issuer" ? .tokenIssuer : .memberService),
            "MANAGEMENT_HOST": "127.0.0.1", "MANAGEMENT_PORT": String(management),
            // Warnings, so the test sees when the stream set-up has begun to wait.
            "LOG_LEVEL": "warning",
        ].merging(TestIdentities.environment(for: service)) { $1 })
        defer { process.kill() }
        let base = "http://127.0.0.1:\(management)"
        let alive = await eventually(timeout: .seconds(20)) {
            (try? await RunningStack.send("GET", base + "/healthz"))?.status == 200
        }
        #expect(alive, "\(service): \(process.errorOutput)")
        // Connected and migrated, the service's outbox or consumers now wait in the stream set-up for
        // JetStream: the state under test, reached when it says so.
        let waiting = await eventually(timeout: .seconds(20)) { process.errorOutput.contains("JetStream not ready, retrying") }
        #expect(waiting, "\(service) never waited for JetStream: \(process.errorOutput)")
        // Its endpoints do not wait: logins go on while JetStream is down (an outbox keeps the events).
        let ready = await eventually(timeout: .seconds(10)) {
            (try? await RunningStack.send("GET", base + "/readyz"))?.status == 200
        }
        #expect(ready, "\(service) is not ready without JetStream: \(process.errorOutput)")

        let stopping = ContinuousClock.now
        process.terminate()
        let status = await process.waitForExit(timeout: .seconds(10))
        let elapsed = ContinuousClock.now - stopping
        #expect(status == 0, "\(service) exit status \(String(describing: status)): \(process.errorOutput)")
        #expect(elapsed < .seconds(2), "\(service) took \(elapsed) to stop")
    }

    @Test("a running service is ready on its management port, shows its process figures, and stops cleanly on SIGTERM",
          arguments: ["token-verifier", "member-service", "token-issuer"])
    func readyAndStopped(_ service: String) async throws {
        // A private NATS, so this replica never takes requests meant for the shared stack's services.
        let nats = try await TestNATSServer.start(jetStream: true)
        defer { nats.stop() }
        let database = try await TestStack.freshDatabase()
        let management = try TestNATSServer.freePort()
        let process = try await ServiceProcess.start(service, environment: [
            "NATS_URL": nats.url, "DATABASE_URL": TestStack.serviceURL(database, service == "token-issuer" ? .tokenIssuer : .memberService),
            "MANAGEMENT_HOST": "127.0.0.1", "MANAGEMENT_PORT": String(management),
            "LOG_LEVEL": "error",
        ].merging(TestIdentities.environment(for: service)) { $1 })
        defer { process.kill() }
        let base = "http://127.0.0.1:\(management)"
        let ready = await eventually(timeout: .seconds(30)) {
            (try? await RunningStack.send("GET", base + "/readyz"))?.status == 200
        }
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
