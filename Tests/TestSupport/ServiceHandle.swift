import Logging
import Runtime
import Synchronization

/// A service of the test stack run in a task that a test can stop and start again (to show what
/// happens while it is down).
public final class ServiceHandle: Sendable {
    /// Builds the service; it calls the closure it is given once it serves.
    typealias Make = @Sendable (@escaping @Sendable () -> Void) -> any Service

    private let make: Make
    private let logger: Logger
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(logger: Logger, make: @escaping Make) {
        self.make = make
        self.logger = logger
    }

    /// Starts the service (unless it runs) and waits until it says it serves (connected, migrated, its
    /// subscriptions under way).
    public func start() async {
        let (ready, signal) = AsyncStream<Void>.makeStream()
        let service = make { signal.yield() }
        let logger = logger
        let started: Bool = task.withLock { task in
            guard task == nil else { return false }
            task = Task {
                do { try await service.run() } catch { logger.critical("service stopped", ["error": String(describing: error)]) }
                signal.finish()
            }
            return true
        }
        guard started else { return }
        // `ready` comes as the service starts its subscriptions; no pause for them to reach the server: a
        // call made before they did waits for a responder (ServiceClientRetryTests.waitsForAResponder).
        for await _ in ready { break }
    }

    /// Cancels the service and waits until it has stopped.
    public func stop() async {
        guard let running = task.withLock({ task in defer { task = nil }; return task }) else { return }
        running.cancel()
        await running.value
    }
}
