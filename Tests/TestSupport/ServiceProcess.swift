import Collections
import Foundation

/// One of this package's executables (`gateway`, `member-service`, ...) run as a child process, as
/// deployments run it: for tests of signals and of the management port.
public final class ServiceProcess: @unchecked Sendable {
    private let process: Process
    /// Where its standard error goes, read by ``errorOutput``.
    private let errorFile: URL

    private init(process: Process, errorFile: URL) {
        self.process = process
        self.errorFile = errorFile
    }

    /// Starts `product` (built next to the test bundle by `swift build --build-tests`) with `environment`
    /// on top of this process's `PATH` alone, so no variable of the test run leaks into it.
    ///
    /// The spawn runs on a thread of its own: Foundation's `Process.run()` may take long (it closes every
    /// descriptor the child could inherit), and on one of Swift's two cooperative threads it stalled the
    /// whole test process (the shared stack's provider calls timed out meanwhile).
    public static func start(_ product: String, environment: [String: String]) async throws -> ServiceProcess {
        try await BlockingCall.run { try spawn(product, environment: environment) }
    }

    /// Where `product`, one of this package's executables, was built: next to the test bundle
    /// (`swift build --build-tests`).
    public static func executable(_ product: String) throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var executable = directory.appendingPathComponent(product)
        if !FileManager.default.isExecutableFile(atPath: executable.path) {
            // Swift Testing's runner may live one level down (the .xctest bundle).
            executable = directory.deletingLastPathComponent().appendingPathComponent(product)
        }
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw TestStackError("\(product) is not built next to the tests (\(directory.path)); run deploy/local/test")
        }
        return executable
    }

    private static func spawn(_ product: String, environment: [String: String]) throws -> ServiceProcess {
        let executable = try executable(product)
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("\(product)-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
            .merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        return ServiceProcess(process: process, errorFile: errorFile)
    }

    /// Sends SIGTERM, as `docker stop` and Kubernetes do.
    public func terminate() {
        process.terminate()
    }

    /// Waits up to `timeout` for the process to exit; its exit status, or nil when it still runs.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let exited = await eventually(timeout: timeout, poll: .milliseconds(20)) { !process.isRunning }
        return exited ? process.terminationStatus : nil
    }

    /// What it wrote to standard error so far.
    public var errorOutput: String {
        (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
    }

    /// Kills it if it still runs and removes its output file.
    public func kill() {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: errorFile)
    }
}
