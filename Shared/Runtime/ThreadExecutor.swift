import Dispatch
import Foundation
import Synchronization

/// An executor on one thread of its own: jobs run there in the order they were enqueued, never on
/// Swift's cooperative pool. As a `SerialExecutor` it isolates an actor (its `unownedExecutor`); as a
/// `TaskExecutor` a task that prefers it (`Task(executorPreference:)`) runs its nonisolated code there.
///
/// For work that must answer while the pool is busy: the cooperative pool has a thread per core, so
/// two jobs that compute for seconds (key generation, a long synchronous loop) leave every other task
/// waiting behind them. The thread lives as long as the process.
public final class ThreadExecutor: SerialExecutor, TaskExecutor, Sendable {
    private let jobs = Mutex<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)
    private let threadID = Mutex<pthread_t?>(nil)

    /// Starts the thread, named `name` for Foundation (`Thread.name`).
    public init(name: String) {
        let thread = Thread { [self] in
            // Recorded before the first job runs: until then nothing can ask isCurrent from the thread.
            threadID.withLock { $0 = pthread_self() }
            while true {
                available.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            }
        }
        thread.name = name
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLock { $0.append(unowned) }
        available.signal()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Whether the caller runs on the executor's thread.
    public var isCurrent: Bool {
        let owner = threadID.withLock { $0 }
        return owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// Traps unless called on the executor's thread (what `assumeIsolated` asks of a serial executor).
    public func checkIsolated() {
        precondition(isCurrent, "not on the executor's thread")
    }
}
