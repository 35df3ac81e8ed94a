import Testing
@testable import NATS

@Suite("Message channel lifetime")
struct MessageChannelLifetimeTests {
    @Test("a channel dropped with unread elements is freed without trapping")
    func droppedWithUnreadElements() {
        // Before the fix this trapped in libdispatch ("semaphore deallocated while in use").
        for _ in 0..<10 {
            let channel = MessageChannel<Int>(capacity: 8)
            #expect(channel.send(1))
            #expect(channel.send(2))
            channel.finish()
        }
    }
}
