import Foundation
import Logging
import Postgres
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
            let server = try await ClusterControl.create()
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

/// A throwaway PostgreSQL cluster of a test's own (as the `postgres` user when running as root),
/// driven with `initdb` and `pg_ctl`.
struct ClusterControl {
    let directory: String
    let port: Int
    private static let binaries = ProcessInfo.processInfo.environment["PG_TEST_BIN"] ?? "/usr/lib/postgresql/15/bin"

    var dataDirectory: String { directory + "/data" }
    /// The URL of its `postgres` database (trust authentication, loopback only).
    var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    /// Makes a new cluster in a temporary directory, on a free port.
    static func create() async throws -> ClusterControl {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-restart-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0, let user = getpwnam("postgres") {
            _ = chown(directory, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        let cluster = ClusterControl(directory: directory, port: try SilentListener.freePort())
        try await cluster.run(["\(binaries)/initdb", "-D", cluster.dataDirectory, "-A", "trust", "-U", "postgres", "--no-sync"])
        return cluster
    }

    /// Starts the server and waits until it accepts connections.
    func start() async throws {
        try await run(["\(Self.binaries)/pg_ctl", "-s", "-D", dataDirectory, "-w", "-l", directory + "/server.log", "-o",
                       "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off", "start"])
    }

    /// Stops the server (fast shutdown) and waits until it has.
    func stop() async throws {
        try await run(["\(Self.binaries)/pg_ctl", "-s", "-D", dataDirectory, "-m", "fast", "-w", "stop"])
    }

    /// Stops the server if it runs and deletes the cluster (synchronously: it runs in a `defer`).
    func remove() {
        _ = Self.spawnAndWait(command(["\(Self.binaries)/pg_ctl", "-s", "-D", dataDirectory, "-m", "immediate", "-w", "stop"]))
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func command(_ program: [String]) -> [String] {
        getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + program : program
    }

    /// Spawns `command` and waits for it; its exit status, or -1 when it could not start.
    private static func spawnAndWait(_ command: [String]) -> Int32 {
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, command[0], nil, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status
    }

    /// Runs a PostgreSQL program and waits for it on a Dispatch thread, not a cooperative one.
    ///
    /// Not `Foundation.Process`: on Linux it reports termination only once every descendant has closed an
    /// inherited descriptor, and the postmaster that `pg_ctl start` leaves running never does.
    func run(_ program: [String]) async throws {
        let command = command(program)
        let status: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Self.spawnAndWait(command)) }
        }
        try #require(status == 0, "\(URL(fileURLWithPath: program[0]).lastPathComponent) exited with status \(status)")
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
