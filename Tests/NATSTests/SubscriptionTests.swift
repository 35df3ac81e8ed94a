import NATS
import Testing

@Suite("Subscriptions deliver, end and drain")
struct SubscriptionTests {
    @Test func publishedMessagesArriveInOrderAndIterationEndsOnUnsubscribe() async throws {
        let connection = try await TestNATS.connect()
        let subject = TestNATS.unique("stream")
        let subscription = try connection.subscribe(subject)
        for index in 0..<500 { try connection.publish(subject, [UInt8(index % 256)]) }
        var received: [UInt8] = []
        for await message in subscription {
            received.append(message.payload[0])
            if received.count == 500 { subscription.unsubscribe() }
        }
        #expect(received == (0..<500).map { UInt8($0 % 256) })
        await connection.drainAndClose()
    }

    @Test func slowConsumerGetsEverythingThroughASmallBuffer() async throws {
        let connection = try await NATSConnection.connect(
            .init(url: TestNATS.url, name: "small-buffer", subscriptionBufferSize: 4, access: TestNATS.access), logger: TestNATS.logger)
        let subject = TestNATS.unique("slow")
        let subscription = try connection.subscribe(subject)
        for index in 0..<200 { try connection.publish(subject, [UInt8(index)]) }
        var received: [UInt8] = []
        for await message in subscription {
            if received.count % 50 == 0 { try await Task.sleep(for: .milliseconds(20)) }
            received.append(message.payload[0])
            if received.count == 200 { subscription.unsubscribe() }
        }
        #expect(received == (0..<200).map { UInt8($0) })
        await connection.drainAndClose()
    }

    @Test func drainAndCloseIsIdempotentAndEndsSubscriptions() async throws {
        let connection = try await TestNATS.connect()
        let subscription = try connection.subscribe(TestNATS.unique("drain"))
        let iteration = Task { for await _ in subscription {}; return true }
        await connection.drainAndClose()
        await connection.drainAndClose()
        #expect(await iteration.value)
        #expect(!connection.isConnected)
        await #expect(throws: NATSError.connectionClosed) {
            _ = try await connection.request("after.close", [], timeout: .seconds(1))
        }
    }

    @Test func respondWithoutReplySubjectThrows() async throws {
        let connection = try await TestNATS.connect()
        #expect(throws: NATSError.noReplySubject) {
            try connection.respond(to: NATSMessage(subject: "x", payload: []), [])
        }
        await connection.drainAndClose()
    }

    @Test func connectToNothingFailsWithConnectionFailed() async throws {
        await #expect(throws: NATSError.connectionFailed) {
            _ = try await TestNATS.connect(url: "nats://127.0.0.1:1")
        }
    }
}
