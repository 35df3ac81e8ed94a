@testable import Collections
import Testing

@Suite("Gate: opens once, for every waiter", .timeLimit(.minutes(1)))
struct GateTests {
    @Test("opened() waits through its task's cancellation: a close waited for must have happened")
    func openedIgnoresCancellation() async {
        let gate = Gate()
        let waiter = Task { () -> Bool in
            await gate.opened()
            return gate.isOpen
        }
        await Self.untilWaiting(gate, 1)
        waiter.cancel()
        #expect(gate.open())
        #expect(await waiter.value, "opened() returned before the gate opened")
        await gate.opened()
    }

    @Test("wait(timeout:) gives up when its waiting task is cancelled, and is gone; the gate opens for the others after")
    func timedWaitEndsOnCancellation() async {
        let gate = Gate()
        let cancelled = Task { await gate.wait(timeout: .seconds(3600)) }
        await Self.untilWaiting(gate, 1)
        cancelled.cancel()
        #expect(await cancelled.value == false)
        #expect(gate.waiterCount == 0, "the cancelled waiter stayed")
        let other = Task { await gate.wait(timeout: .seconds(3600)) }
        await Self.untilWaiting(gate, 1)
        gate.open()
        #expect(await other.value)
        #expect(await gate.wait(timeout: .zero), "an open gate lets a waiter through at once")
    }

    /// Returns once `count` tasks wait at `gate` (the suite's time limit ends a wait that never comes).
    private static func untilWaiting(_ gate: Gate, _ count: Int) async {
        while gate.waiterCount < count { await Task.yield() }
    }
}
