import Collections
import Foundation
import Synchronization

/// A private nats-server for tests that must break NATS-side things (stop a service, hang
/// one) without disturbing the shared stack. Stopped when `stop()` is called.
public final class TestNATSServer: Sendable {
    /// Its URL.
    public let url: String
    private let process: Process
    private let store: URL

    private init(url: String, process: Process, store: URL) {
        self.url = url
        self.process = process
        self.store = store
    }

    /// Starts nats-server on a free port (with `jetStream`, with JetStream storing in a temporary
    /// directory) and waits until it accepts connections.
    /// With `tls` (a certificate and key, PEM), it requires TLS of every client.
    public static func start(jetStream: Bool = false, tls: (certificate: String, key: String)? = nil) async throws -> TestNATSServer {
        let port = try freePort()
        let process = Process()
        let candidates = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"]
        guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestStackError("nats-server is not installed (deploy/local/test installs it)")
        }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-a", "127.0.0.1", "-p", String(port)]
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("test-nats-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        if jetStream { process.arguments! += ["-js", "-sd", store.appendingPathComponent("js").path] }
        if let tls { process.arguments! += ["--tls", "--tlscert", tls.certificate, "--tlskey", tls.key] }
        // The same identities and permissions as the shared server (SPEC section 9).
        if let authorization = try TestIdentities.serverAuthorization() {
            let file = store.appendingPathComponent("auth.conf")
            try authorization.write(to: file, atomically: true, encoding: .utf8)
            process.arguments! += ["-c", file.path]
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // On a thread of its own: Process.run() closes every descriptor the child could inherit, and ~500
        // suites starting at once held Swift's cooperative threads for seconds in it.
        try await BlockingCall.run { try process.run() }
        let pid = process.processIdentifier
        AtExit.register("nats-server \(pid)") {
            kill(pid, SIGKILL)
            try? FileManager.default.removeItem(at: store)
        }
        let server = TestNATSServer(url: "nats://127.0.0.1:\(port)", process: process, store: store)
        do {
            try await waitUntil(timeout: .seconds(5), poll: .milliseconds(50), "nats-server did not start on port \(port)") { canConnect(port) }
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// Whether the server process is still alive (a test that provokes the server checks it survived).
    public var isRunning: Bool { process.isRunning }

    /// Stops the server and removes its JetStream store.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        AtExit.cancel("nats-server \(process.processIdentifier)")
        try? FileManager.default.removeItem(at: store)
    }

    /// A port nothing listens on right now.
    public static func freePort() throws -> Int {
        guard let port = bindable(0) else { throw TestStackError("bind() failed") }
        return port
    }

    /// Whether `port` on 127.0.0.1 can be bound right now (nothing listens there).
    public static func isFree(_ port: Int) -> Bool {
        bindable(port) != nil
    }

    /// Binds `port` on 127.0.0.1 (0: one the system picks) and lets it go again; the port bound, or nil.
    private static func bindable(_ port: Int) -> Int? {
        withLoopbackSocket(port, orElse: nil) { fd, address in
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
        }
    }

    private static func canConnect(_ port: Int) -> Bool {
        withLoopbackSocket(port, orElse: false) { fd, address in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
        }
    }

    /// Runs `body` with a new TCP socket and the address of `port` on 127.0.0.1, then closes the socket;
    /// `failed` when no socket can be made.
    private static func withLoopbackSocket<Result>(_ port: Int, orElse failed: Result,
                                                   _ body: (Int32, inout sockaddr_in) -> Result) -> Result {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return failed }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return body(fd, &address)
    }
}

/// What must be undone when the test process exits (a suite's private stack lives as long as the
/// process): servers it started are stopped then, so that none outlives the test run.
enum AtExit {
    private static let actions = Mutex<[String: @Sendable () -> Void]>([:])
    private static let installed = Mutex(false)

    /// Runs `action` at exit unless ``cancel(_:)`` is called with `key` before.
    static func register(_ key: String, _ action: @escaping @Sendable () -> Void) {
        actions.withLock { $0[key] = action }
        let first = installed.withLock { installed -> Bool in
            defer { installed = true }
            return !installed
        }
        if first {
            atexit {
                for action in AtExit.actions.withLock({ $0.values }) { action() }
            }
        }
    }

    static func cancel(_ key: String) {
        actions.withLock { _ = $0.removeValue(forKey: key) }
    }
}
