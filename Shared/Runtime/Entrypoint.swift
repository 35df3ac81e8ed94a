import Foundation
import Logging

/// The shared body of every executable's `main.swift`: blocks termination signals, runs
/// `start`, and turns any error into a clear message and exit code 1 (an uncaught error at
/// top level would crash with no message).
///
/// SIGTERM or SIGINT cancels `start` at any point, waiting for PostgreSQL or NATS included; its
/// services then stop in order (``ServiceGroup``). A second signal exits at once.
public enum Entrypoint {
    /// Runs `start` and exits the process when it returns or throws. With `niceness` above 0, the process
    /// first lowers its CPU priority (`setpriority`, before any other thread starts, so every thread it makes
    /// inherits it): for a service whose work may wait (the admin-api's audit trail catches up behind the
    /// logins), so that under load it takes only the CPU the others leave.
    public static func run(_ name: String, niceness: Int32 = 0, _ start: @escaping @Sendable () async throws -> Void) -> Never {
        if niceness > 0 { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
        Signals.blockTermination()
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        let task = Task {
            do {
                try await start()
            } catch let error as ConfigurationError {
                outcome.set("\(name): configuration error: \(error)\n")
            } catch is CancellationError {
                // Stopped by a signal before it was up: a clean stop.
            } catch {
                outcome.set("\(name): \(error)\n")
            }
            done.signal()
        }
        let signals = Signals.watch { _ in
            if outcome.signalled() {
                FileHandle.standardError.write(Data("\(name): second signal, exiting now\n".utf8))
                exit(1)
            }
            task.cancel()
        }
        done.wait()
        signals.forEach { $0.cancel() }
        if let message = outcome.message {
            FileHandle.standardError.write(Data(message.utf8))
            exit(1)
        }
        exit(0)
    }

    private final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        // Written by the start task before it signals the semaphore, read after the wait.
        var message: String?
        private var signals = 0
        func set(_ message: String) { self.message = message }
        /// Counts a signal; true when one came before.
        func signalled() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            signals += 1
            return signals > 1
        }
    }
}

/// Process signals: blocked for every thread at start, then delivered through Dispatch.
public enum Signals {
    /// Blocks SIGTERM, SIGINT and SIGPIPE for the calling thread and every thread it starts later.
    /// Call first thing in `main`, before cnats or libmicrohttpd start threads of their own,
    /// so that no C thread is picked to take the signal.
    public static func blockTermination() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Calls `handler` for every SIGTERM and SIGINT until the returned sources are cancelled.
    static func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceSignal] {
        [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }
}
