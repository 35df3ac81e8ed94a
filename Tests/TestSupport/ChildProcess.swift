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

/// Runs a program to completion and collects what it printed. The blocking reads and the wait
/// happen on a thread of their own, never on one of Swift's few cooperative threads.
public func runProcess(_ executable: String, _ arguments: [String], workingDirectory: String? = nil) async throws -> ProcessOutput {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = arguments
                if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
                let out = Pipe()
                let err = Pipe()
                process.standardOutput = out
                process.standardError = err
                try process.run()
                let output = out.fileHandleForReading.readDataToEndOfFile()
                let error = err.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return ProcessOutput(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
                                     error: String(decoding: error, as: UTF8.self))
            })
        }.start()
    }
}
