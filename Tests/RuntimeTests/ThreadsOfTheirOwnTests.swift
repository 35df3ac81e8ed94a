import Collections
import Dispatch
import Foundation
import Runtime
import Synchronization
import Testing

/// Work that blocks, or must answer while the cooperative pool is busy, runs on threads of its own.
@Suite("Threads of their own: BlockingCall and ThreadExecutor")
struct ThreadsOfTheirOwnTests {
    @Test("more blocking calls than the machine has cores leave Swift's pool free: a job on it runs while they all wait")
    func blockingCallsLeaveThePoolFree() async throws {
        let count = 64
        let gate = Hold()
        let calls = (0..<count).map { _ in
            Task {
                try await BlockingCall.run { () -> Bool in
                    gate.waiting.add(1, ordering: .relaxed)
                    // On the pool's threads (a concurrent Dispatch queue is that on Linux), these waits would
                    // hold every thread, the job below could not run, and they would end by timing out.
                    return gate.release.wait(timeout: .now() + 20) == .success
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while gate.waiting.load(ordering: .relaxed) < count, ContinuousClock.now < deadline { await Task.yield() }
        #expect(gate.waiting.load(ordering: .relaxed) == count, "not every call started")
        // This job and the releases need the pool: with its threads held, the calls end by their timeout.
        await Task.detached {}.value
        for _ in 0..<count { gate.release.signal() }
        var released = 0
        for call in calls where try await call.value { released += 1 }
        #expect(released == count, "\(count - released) calls were released only by their timeout")
    }

    private final class Hold: Sendable {
        let release = DispatchSemaphore(value: 0)
        let waiting = Atomic<Int>(0)
    }

    @Test("an actor on a ThreadExecutor runs on its thread, and so does a task that prefers it; other code does not")
    func executorRunsOnItsThread() async {
        let executor = ThreadExecutor(name: "executor-test")
        let probe = Probe(executor: executor)
        #expect(await probe.onItsThread())
        #expect(await Task(executorPreference: executor) { executor.isCurrent }.value)
        #expect(await Task.detached { executor.isCurrent }.value == false)
    }

    @Test("a ThreadExecutor runs its jobs one at a time, each on its thread")
    func executorIsSerial() async {
        let probe = Probe(executor: ThreadExecutor(name: "thread-executor-serial"))
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 { group.addTask { await probe.append(index) } }
        }
        #expect(await probe.values.sorted() == Array(0..<200))
        #expect(await probe.overlaps == 0)
    }

    private actor Probe {
        let executor: ThreadExecutor
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        var values: [Int] = []
        var overlaps = 0
        private let inside = Atomic<Int>(0)

        init(executor: ThreadExecutor) { self.executor = executor }

        func onItsThread() -> Bool {
            executor.checkIsolated()
            return executor.isCurrent
        }

        func append(_ value: Int) {
            if inside.add(1, ordering: .relaxed).newValue > 1 || !executor.isCurrent { overlaps += 1 }
            values.append(value)
            inside.subtract(1, ordering: .relaxed)
        }
    }
}

