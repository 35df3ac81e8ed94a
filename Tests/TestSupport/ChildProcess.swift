import Collections
import Foundation

/// Output of a finished child process.
public struct ProcessOutput: Sendable {
    /// The exit status.
    public let status: Int32
    /// What it wrote to standard output.
    public let output: String
    /// What it wrote to standard error.
    public let error: String
}

/// Runs a program to completion and collects what it printed. Output goes to temporary files
/// (Foundation's pipe reads trap on an interrupted system call), and the wait happens on a
/// thread of its own, never on one of Swift's few cooperative threads.
public func runProcess(_ executable: String, _ arguments: [String], workingDirectory: String? = nil) async throws -> ProcessOutput {
    try await BlockingCall.run {
        let directory = FileManager.default.temporaryDirectory
        let outURL = directory.appendingPathComponent("run-\(UUID().uuidString).out")
        let errURL = directory.appendingPathComponent("run-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        process.waitUntilExit()
        return ProcessOutput(status: process.terminationStatus,
                             output: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                             error: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}
