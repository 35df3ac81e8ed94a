import Contracts
import Foundation
import Logging
import Messaging
import NATS
import Testing
import TestSupport

/// Issuing a server nonce keeps nothing: 100,000 of them, never used, leave the token-verifier's memory
/// as it was. The verifier runs as a process of its own on a NATS of its own, so the figure is its memory
/// alone; this suite runs with the other process suites, after the parallel ones, whose calls a flood of
/// 110,000 requests on two cores would otherwise hold up past their timeouts.
@Suite("Server nonces: issuing keeps nothing", .serialized)
struct ServerNonceProcessTests {
    @Test("100,000 nonces issued and never used leave the verifier's resident memory within 8 MB")
    func issuingKeepsNothing() async throws {
        let nats = try await TestNATSServer.start(jetStream: true)
        defer { nats.stop() }
        let management = try TestNATSServer.freePort()
        let verifier = try await ServiceProcess.start("token-verifier", environment: [
            "NATS_URL": nats.url, "MANAGEMENT_HOST": "127.0.0.1", "MANAGEMENT_PORT": String(management), "LOG_LEVEL": "error",
        ].merging(TestIdentities.environment(for: "token-verifier")) { $1 })
        defer { verifier.kill() }
        let base = "http://127.0.0.1:\(management)"
        let ready = await eventually(timeout: .seconds(30)) { (try? await RunningStack.send("GET", base + "/readyz"))?.status == 200 }
        try #require(ready, "token-verifier: \(verifier.errorOutput)")

        let logger = Logger(label: "nonces", level: .critical)
        let connection = try await NATSConnection.connect(
            .init(url: nats.url, name: "nonces", access: TestIdentities.access(for: .gateway)), logger: logger)
        try await withResource(connection, close: { await $0.drainAndClose() }) { connection in
            let client = ServiceClient(connection: connection, logger: logger)
            func issue(_ count: Int) async throws {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<32 {
                        group.addTask {
                            for index in stride(from: worker, to: count, by: 32) {
                                let issued = try await client.call(Endpoints.issueNonce, NonceRequest(deviceId: "flood-\(index % 1_000)"),
                                                                   timeout: .seconds(10))
                                guard issued.nonce.hasPrefix("n1.") else { throw NotANonce(text: issued.nonce) }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await issue(10_000)  // Warms up the buffers and pools a first burst allocates.
            let before = try await residentBytes(base)
            try await issue(100_000)
            let after = try await residentBytes(base)
            // 100,000 remembered nonces would be some 15 MB.
            #expect(after - before < 8 * 1_048_576, "resident memory grew by \((after - before) / 1_024) KiB")
        }
        verifier.terminate()
        #expect(await verifier.waitForExit(timeout: .seconds(15)) == 0, "\(verifier.errorOutput)")
    }

    struct NotANonce: Error {
        let text: String
    }

    /// The verifier's `process_resident_memory_bytes`, from its management port.
    private func residentBytes(_ base: String) async throws -> Int {
        let metrics = try await RunningStack.send("GET", base + "/metrics")
        let line = try #require(metrics.text.split(separator: "\n").first { $0.hasPrefix("process_resident_memory_bytes ") })
        return Int(try #require(Double(line.split(separator: " ")[1])))
    }
}
