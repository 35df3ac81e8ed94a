import Foundation
import Logging

/// The shared body of every executable's `main.swift`: blocks termination signals, runs
/// `start`, and turns any error into a clear message and exit code 1 (an uncaught error at
/// top level would crash with no message).
public enum Entrypoint {
    /// Runs `start` and exits the process when it returns or throws.
    public static func run(_ name: String, _ start: @escaping @Sendable () async throws -> Void) -> Never {
        Signals.blockTermination()
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        Task {
            do {
                try await start()
            } catch let error as ConfigurationError {
                outcome.set("\(name): configuration error: \(error)\n")
            } catch {
                outcome.set("\(name): \(error)\n")
            }
            done.signal()
        }
        done.wait()
        if let message = outcome.message {
            FileHandle.standardError.write(Data(message.utf8))
            exit(1)
        }
        exit(0)
    }

    private final class Outcome: @unchecked Sendable {
        // Written by the start task before it signals the semaphore, read after the wait.
        var message: String?
        func set(_ message: String) { self.message = message }
    }
}
