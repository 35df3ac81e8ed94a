import Synchronization

/// Runs async jobs one after another, in the order they were handed in, each to its end (awaits included) before the
/// next begins: a lock held across suspension points, which an actor is not.
public final class SerialQueue: Sendable {
    private let last = Mutex<Task<Void, Never>?>(nil)

    /// An empty queue.
    public init() {}

    /// Runs `job` once every job handed in before it has finished, and returns what it returned. Cancelling the caller
    /// cancels the job, not the queue.
    public func run<T: Sendable>(_ job: @escaping @Sendable () async throws -> T) async throws -> T {
        let done = Promise<T>()
        let task = last.withLock { last -> Task<Void, Never> in
            let previous = last
            let task = Task {
                await previous?.value
                do { _ = done.settle(.success(try await job())) } catch { _ = done.settle(.failure(error)) }
            }
            last = task
            return task
        }
        return try await withTaskCancellationHandler {
            try await done.settled().get()
        } onCancel: {
            task.cancel()
        }
    }
}
