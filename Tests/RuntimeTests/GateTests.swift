import Collections
import Testing

@Suite("Gate: opens once, for every waiter")
struct GateTests {
    @Test("opened() waits through its task's cancellation: a close waited for must have happened")
    func openedIgnoresCancellation() async {
        let gate = Gate()
        let waiter = Task { () -> Bool in
            await gate.opened()
            return gate.isOpen
        }
        waiter.cancel()
        #expect(gate.open())
        #expect(await waiter.value, "opened() returned before the gate opened")
        await gate.opened()
    }

    @Test("wait(timeout:) gives up when its task is cancelled, and the gate opens for the others after")
    func timedWaitEndsOnCancellation() async {
        let gate = Gate()
        let cancelled = Task { await gate.wait(timeout: .seconds(3600)) }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        let other = Task { await gate.wait(timeout: .seconds(3600)) }
        gate.open()
        #expect(await other.value)
        #expect(await gate.wait(timeout: .zero), "an open gate lets a waiter through at once")
    }
}
