import Collections
import Foundation

/// A throwaway PostgreSQL cluster of a test's own (as the `postgres` user when running as root), driven
/// with `initdb` and `pg_ctl`: for tests that stop, kill or restart the server, which the test command's
/// shared server must not see.
public struct PostgresCluster: Sendable {
    public let directory: String
    public let port: Int
    private static let binaries = ProcessInfo.processInfo.environment["PG_TEST_BIN"] ?? "/usr/lib/postgresql/15/bin"

    var dataDirectory: String { directory + "/data" }
    /// The URL of its `postgres` database as the superuser (trust authentication, loopback only).
    public var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    /// Makes a new cluster in a temporary directory, on a free port.
    public static func create() async throws -> PostgresCluster {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-cluster-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0, let user = getpwnam("postgres") {
            _ = chown(directory, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        let cluster = PostgresCluster(directory: directory, port: try TestNATSServer.freePort())
        try await cluster.run(["\(binaries)/initdb", "-D", cluster.dataDirectory, "-A", "trust", "-U", "postgres", "--no-sync"])
        return cluster
    }

    /// Starts the server and waits until it accepts connections. `durable`: with `fsync` on, as a
    /// deployment runs (otherwise off, which is faster and loses nothing unless the machine itself fails).
    public func start(durable: Bool = false) async throws {
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=200" + (durable ? "" : " -c fsync=off")
        do {
            try await run(["\(Self.binaries)/pg_ctl", "-s", "-D", dataDirectory, "-w", "-l", directory + "/server.log", "-o", options, "start"])
        } catch {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            throw TestStackError("PostgreSQL did not start (\(error)); its log ends:\n" + log.split(separator: "\n").suffix(10).joined(separator: "\n"))
        }
    }

    /// Stops the server (fast shutdown) and waits until it has.
    public func stop() async throws {
        try await run(["\(Self.binaries)/pg_ctl", "-s", "-D", dataDirectory, "-m", "fast", "-w", "stop"])
    }

    /// Kills the server as a crash would: SIGKILL to the postmaster and every process under it, then waits
    /// until they are gone. What was committed is on disk (in its write-ahead log); the next start recovers.
    public func kill() async throws {
        let text = try String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8)
        guard let line = text.split(separator: "\n").first, let postmaster = pid_t(line) else {
            throw TestStackError("no postmaster PID in \(dataDirectory)/postmaster.pid")
        }
        // Stopped first, so that it forks no backend between the listing of its children and the kill.
        _ = Glibc.kill(postmaster, SIGSTOP)
        let processes = [postmaster] + Self.children(of: postmaster)
        for pid in processes { _ = Glibc.kill(pid, SIGKILL) }
        _ = await eventually(timeout: .seconds(10), poll: .milliseconds(20)) {
            !processes.contains(where: { Glibc.kill($0, 0) == 0 && !Self.isZombie($0) })
        }
        // A killed postmaster that its parent has not reaped yet (here PID 1 may never reap it) still
        // "exists", and the next start would take its lock files for a running server's: they are stale.
        if Self.isZombie(postmaster) {
            for file in [dataDirectory + "/postmaster.pid", directory + "/.s.PGSQL.\(port).lock", directory + "/.s.PGSQL.\(port)"] {
                try? FileManager.default.removeItem(atPath: file)
            }
        }
    }

    /// Removes the cluster when the test process exits: for a cluster under a stack that lives as long as
    /// the process (``TestStack/isolated(logger:databaseAdminURL:)``), whose services would otherwise keep
    /// trying to reach it.
    public func removeAtExit() {
        AtExit.register("postgres \(directory)") { remove() }
    }

    /// Stops the server if it runs and deletes the cluster (synchronously: it runs in a `defer`).
    public func remove() {
        _ = Self.spawnAndWait(command(["\(Self.binaries)/pg_ctl", "-s", "-D", dataDirectory, "-m", "immediate", "-w", "stop"]))
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The processes whose parent is `parent` (PostgreSQL's backends and helpers are the postmaster's children).
    private static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After the command name: state, then the parent's PID.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent ? pid : nil
        }
    }

    private static func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return true
        }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
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

    /// Runs a PostgreSQL program and waits for it on a thread of its own (`BlockingCall`): `DispatchQueue.global()`
    /// is the cooperative pool's root queue on Linux, and a `pg_ctl start` waited there for seconds.
    ///
    /// Not `Foundation.Process`: on Linux it reports termination only once every descendant has closed an
    /// inherited descriptor, and the postmaster that `pg_ctl start` leaves running never does.
    func run(_ program: [String]) async throws {
        let command = command(program)
        let status = try await BlockingCall.run { Self.spawnAndWait(command) }
        guard status == 0 else {
            throw TestStackError("\(URL(fileURLWithPath: program[0]).lastPathComponent) exited with status \(status)")
        }
    }
}
