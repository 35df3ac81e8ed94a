@testable import Collections
import Runtime
import Testing

@Suite("Promise: a result set once, for every waiter; ResourceService waits on it", .timeLimit(.minutes(1)))
struct PromiseTests {
    private struct Refused: Error, Equatable {}

    @Test("the first result is every waiter's, before and after; a second one changes nothing")
    func settlesOnce() async throws {
        let promise = Promise<Int>()
        let early = Task { await promise.settledUnlessCancelled() }
        await Self.untilWaiting(promise, 1)
        #expect(promise.settle(.success(1)))
        #expect(!promise.settle(.success(2)))
        #expect(try await early.value?.get() == 1)
        #expect(try await promise.settled().get() == 1)
        #expect(promise.waiterCount == 0)
    }

    @Test("a cancelled waiter gets nil and is gone; one that must not be cancelled waits for the result")
    func cancellation() async throws {
        let promise = Promise<Int>()
        let cancellable = Task { await promise.settledUnlessCancelled() }
        let patient = Task { await promise.settled() }
        await Self.untilWaiting(promise, 2)
        cancellable.cancel()
        patient.cancel()
        #expect(await cancellable.value == nil)
        await Self.untilWaiting(promise, 1, exactly: true)
        promise.settle(.failure(Refused()))
        await #expect(throws: Refused.self) { try await patient.value.get() }
        // Cancelled before it waits: nil at once, nothing registered.
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await Promise<Int>().settledUnlessCancelled()
        }
        #expect(await late.value == nil)
    }

    @Test("a resource's value waits for its opening, throws what the opening threw, or the waiter's cancellation")
    func resourceService() async throws {
        let opening = Gate()
        let resource = ResourceService("number", open: { await opening.opened(); return 7 }, close: { _ in })
        let running = Task { try await resource.run() }
        let waiter = Task { try await resource.value }
        let cancelled = Task { try await resource.value }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        opening.open()
        #expect(try await waiter.value == 7)
        running.cancel()
        try await running.value

        let failing = ResourceService<Int>("failing", open: { throw Refused() }, close: { _ in })
        await #expect(throws: Refused.self) { try await failing.run() }
        await #expect(throws: Refused.self) { try await failing.value }
    }

    /// Returns once `count` (or, `exactly`, no more than `count`) tasks wait (the suite's time limit ends a wait that never comes).
    private static func untilWaiting<Value>(_ promise: Promise<Value>, _ count: Int, exactly: Bool = false) async {
        while exactly ? promise.waiterCount != count : promise.waiterCount < count { await Task.yield() }
    }
}
