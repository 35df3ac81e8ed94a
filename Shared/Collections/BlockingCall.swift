import Foundation

/// A call that blocks (a C library waiting on the network, a child process) run on a thread of its own.
///
/// Never on Swift's cooperative pool, and never on a concurrent Dispatch queue either: on Linux a
/// concurrent queue runs on the same default-QoS root queue as Swift's global executor, whose threads
/// are one per core. Two NATS connects waiting on a busy server there held both threads of a 2-core
/// machine for seconds, and every task of the process waited (the test processes' provider calls
/// timed out). A thread costs tens of microseconds to start: for calls that are rare (connects,
/// flushes, JetStream administration, closes), not for a hot path.
public enum BlockingCall {
    /// Runs `body` on a new thread and returns its result.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            start { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs `body` on a new thread without waiting for it.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = "blocking-call"
        thread.start()
    }
}
