import Foundation
import Logging
import Postgres
import TestSupport
import Testing

extension PostgresServerTests {
    @Suite struct ReconnectTests {
        @Test func refusedConnectionFailsFastAsUnavailable() async throws {
            var configuration = try PostgresConfiguration(url: "postgres://auth:auth@127.0.0.1:1/auth")
            configuration.connectTimeout = .seconds(2)
            let client = PostgresClient(configuration: configuration, logger: TestDatabase.logger)
            let started = ContinuousClock.now
            let first = await #expect(throws: PostgresError.self) { try await client.query("SELECT 1") }
            #expect(first?.isUnavailable == true)
            #expect(first == .connectionFailed)
            // Within the backoff the client does not try again: it fails at once.
            let second = await #expect(throws: PostgresError.self) { try await client.query("SELECT 1") }
            #expect(second == .unavailable)
            #expect(ContinuousClock.now - started < .seconds(1.5))  // sooner than the 2 s connect timeout
            await client.close()
        }

        @Test func logsNeverContainThePasswordOrParameters() async throws {
            let sink = LogSink.capturing()
            let logger = Logger(label: "postgres-tests", level: .trace, sink: sink)
            let down = PostgresClient(
                configuration: try PostgresConfiguration(url: "postgres://auth:hunter2-secret@127.0.0.1:1/auth"), logger: logger)
            await #expect(throws: PostgresError.self) { try await down.query("SELECT \("param-secret")::text") }
            await down.close()
            // A wrong password against the real server fails authentication; that failure's logs
            // must not carry the password either.
            var wrong = try PostgresConfiguration(url: TestDatabase.url)
            wrong.password = "hunter2-secret"
            let refused = PostgresClient(configuration: wrong, logger: logger)
            await #expect(throws: PostgresError.self) { try await refused.query("SELECT 1") }
            await refused.close()
            let up = PostgresClient(configuration: try PostgresConfiguration(url: TestDatabase.url), logger: logger)
            _ = try await up.query("BEGIN")
            _ = try await up.query("SELECT \("param-secret")::text")
            await up.close()
            #expect(!sink.lines.isEmpty)
            #expect(sink.lines.allSatisfy { !$0.contains("hunter2-secret") && !$0.contains("param-secret") })
        }

        @Test func silentServerFailsWithinConnectTimeout() async throws {
            let listener = try SilentListener()
            var configuration = try PostgresConfiguration(url: "postgres://auth:auth@127.0.0.1:\(listener.port)/auth")
            configuration.connectTimeout = .seconds(2)
            let client = PostgresClient(configuration: configuration, logger: TestDatabase.logger)
            let started = ContinuousClock.now
            let error = await #expect(throws: PostgresError.self) { try await client.query("SELECT 1") }
            let elapsed = ContinuousClock.now - started
            #expect(error?.isUnavailable == true)
            #expect(elapsed >= .seconds(1) && elapsed < .seconds(10), "\(elapsed)")
            await client.close()
            listener.close()
        }

        @Test func terminatedIdleBackendIsReplacedBeforeTheNextStatement() async throws {
            try await TestDatabase.withClient(poolSize: 1) { client in
                let admin = try TestDatabase.client(poolSize: 1)
                let pid = try #require(try await client.query("SELECT pg_backend_pid() AS pid").first).int("pid")
                _ = try await admin.query("SELECT pg_terminate_backend(\(pid)::int)")
                try await Task.sleep(for: .milliseconds(100))
                // Nothing was sent on the dead connection, so the call reconnects instead of failing.
                let newPid = try #require(try await client.query("SELECT pg_backend_pid() AS pid").first).int("pid")
                #expect(newPid != pid)
                await admin.close()
            }
        }

        @Test func backendKilledMidQuerySurfacesAsConnectionLost() async throws {
            try await TestDatabase.withClient(poolSize: 1) { client in
                let admin = try TestDatabase.client(poolSize: 1)
                let pid = try #require(try await client.query("SELECT pg_backend_pid() AS pid").first).int("pid")
                let sleeper = Task { try await client.query("SELECT pg_sleep(5)") }
                try await Task.sleep(for: .milliseconds(200))
                _ = try await admin.query("SELECT pg_terminate_backend(\(pid)::int)")
                let started = ContinuousClock.now
                let error = await #expect(throws: PostgresError.self) { try await sleeper.value }
                #expect(error?.isUnavailable == true, "\(String(describing: error))")
                #expect(ContinuousClock.now - started < .seconds(4))  // sooner than the 5 s sleep
                #expect(try await client.query("SELECT 5 AS v").first?.int("v") == 5)
                await admin.close()
            }
        }

        @Test func sessionDoesNotContinueSilentlyOnANewConnection() async throws {
            try await TestDatabase.withClient(poolSize: 1) { client in
                let admin = try TestDatabase.client(poolSize: 1)
                try await client.withConnection { connection in
                    let pid = try #require(try await connection.query("SELECT pg_backend_pid() AS pid").first).int("pid")
                    _ = try await admin.query("SELECT pg_terminate_backend(\(pid)::int)")
                    try await Task.sleep(for: .milliseconds(100))
                    let error = await #expect(throws: PostgresError.self) { try await connection.query("SELECT 1") }
                    #expect(error == .connectionLost)
                }
                #expect(try await client.query("SELECT 6 AS v").first?.int("v") == 6)
                await admin.close()
            }
        }

        @Test func serverRestartIsSurvived() async throws {
            // A cluster of its own: stopping the shared test server would fail every suite that
            // runs alongside this one.
            let server = try await PostgresCluster.create()
            defer { server.remove() }
            try await server.start()
            var configuration = try PostgresConfiguration(url: server.url)
            configuration.poolSize = 2
            let client = PostgresClient(configuration: configuration, logger: TestDatabase.logger)
            // The same SQL before and after the restart: the new connection must prepare it again.
            #expect(try await client.query("SELECT \(1)::int AS v").first?.int("v") == 1)

            try await server.stop()
            do {
                let started = ContinuousClock.now
                let error = await #expect(throws: PostgresError.self) { try await client.query("SELECT 1") }
                #expect(error?.isUnavailable == true, "\(String(describing: error))")
                let again = await #expect(throws: PostgresError.self) { try await client.query("SELECT 1") }
                #expect(again?.isUnavailable == true)
                #expect(ContinuousClock.now - started < .seconds(3))
            }
            try await server.start()
            // Past the reconnect backoff, the next call opens a fresh connection.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await client.query("SELECT \(7)::int AS v").first?.int("v") == 7)
            let results = try await withThrowingTaskGroup(of: Int64.self) { group in
                for index in 0..<10 {
                    group.addTask { try #require(try await client.query("SELECT \(index)::int AS v").first).int("v") }
                }
                return try await group.reduce(0, +)
            }
            #expect(results == 45)
            await client.close()
            try await server.stop()
        }
    }
}

/// A TCP listener that accepts connections in the kernel but never answers, like a hung server.
final class SilentListener: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        _ = Foundation.close(descriptor)
    }

    /// A port nothing listens on right now (bound, read and released).
    static func freePort() throws -> Int {
        let listener = try SilentListener()
        defer { listener.close() }
        return listener.port
    }
}
