import Runtime
import Testing

@Suite("Wakeup")
struct WakeupTests {
    @Test("a signal wakes the waiter at once; the waits after it last their full timeout again")
    func signalThenTimeouts() async throws {
        let wakeup = Wakeup()
        let waiter = Task {
            let started = ContinuousClock.now
            await wakeup.wait(upTo: .seconds(30))
            return ContinuousClock.now - started
        }
        try await Task.sleep(for: .milliseconds(50))
        wakeup.signal()
        #expect(await waiter.value < .seconds(10))
        // Without the fix, the cancelled timer of the wait above left a signal pending, and each
        // wait after it returned at once (a relay polling in a hot loop).
        for _ in 0..<3 {
            let started = ContinuousClock.now
            await wakeup.wait(upTo: .milliseconds(200))
            #expect(ContinuousClock.now - started >= .milliseconds(190))
        }
    }

    @Test("signals before a wait count as one")
    func pendingSignalsCountAsOne() async {
        let wakeup = Wakeup()
        wakeup.signal()
        wakeup.signal()
        let first = ContinuousClock.now
        await wakeup.wait(upTo: .seconds(30))
        #expect(ContinuousClock.now - first < .seconds(10))
        let second = ContinuousClock.now
        await wakeup.wait(upTo: .milliseconds(200))
        #expect(ContinuousClock.now - second >= .milliseconds(190))
    }
}
