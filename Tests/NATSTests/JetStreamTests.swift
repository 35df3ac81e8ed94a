import Foundation
import NATS
import Testing

/// A fresh stream (unique name and subject) on the test server, deleted afterwards. With `create: false`
/// only its name and subject: the test makes it.
private func withStream(create: Bool = true,
                        _ body: (NATSConnection, _ stream: String, _ subject: String) async throws -> Void) async throws {
    let connection = try await TestNATS.connect("jetstream-tests")
    let stream = TestNATS.unique("S")
    let subject = TestNATS.unique("events")
    do {
        if create { try await connection.jetStream.ensureStream(name: stream, subjects: ["\(subject).>"], maxAge: .seconds(600)) }
        try await body(connection, stream, subject)
    } catch {
        try? await connection.jetStream.deleteStream(name: stream)
        await connection.drainAndClose()
        throw error
    }
    try await connection.jetStream.deleteStream(name: stream)
    await connection.drainAndClose()
}

/// The next message of `consumer`, failing the test after `timeout`.
private func nextMessage(_ consumer: JetStreamConsumer, within timeout: Duration = .seconds(5)) async throws -> JetStreamMessage {
    try #require(try await messageIfAny(consumer, within: timeout), "no JetStream message within \(timeout)")
}

/// The next message of `consumer`, or nil when none comes within `timeout`.
private func messageIfAny(_ consumer: JetStreamConsumer, within timeout: Duration) async throws -> JetStreamMessage? {
    try await withThrowingTaskGroup(of: JetStreamMessage?.self) { group in
        group.addTask {
            var iterator = consumer.makeAsyncIterator()
            return try await iterator.next()
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        let first = try await group.next()!
        group.cancelAll()
        return first
    }
}

@Suite("ensureStream is idempotent")
struct EnsureStreamTests {
    @Test func ensureTwiceAndWithChangedSettings() async throws {
        try await withStream { connection, stream, subject in
            try await connection.jetStream.ensureStream(name: stream, subjects: ["\(subject).>"], maxAge: .seconds(600))
            try await connection.jetStream.ensureStream(name: stream, subjects: ["\(subject).>"], maxAge: .seconds(1200))
            let sequence = try await connection.jetStream.publish("\(subject).a", [1])
            #expect(sequence == 1)
        }
    }

    @Test("a stream is created with the limits asked for; an existing one keeps its own, subjects included, and reports what differs")
    func existingSettingsAreKept() async throws {
        try await withStream(create: false) { connection, stream, subject in
            let created = try await connection.jetStream.ensureStream(name: stream, subjects: ["\(subject).a.>"], maxAge: .seconds(3600))
            #expect(created == .init(created: true))

            // Another start asks for a shorter age, more replicas and one more subject: none is applied.
            let second = try await connection.jetStream.ensureStream(name: stream, subjects: ["\(subject).a.>", "\(subject).b.>"],
                                                                    maxAge: .seconds(60), replicas: 3)
            #expect(!second.created)
            #expect(second.differences == ["max_age 3600 s (asked 60 s)", "replicas 1 (asked 3)", "subjects \(subject).b.> missing"])
            // The missing subject was not added: the stream does not capture it.
            await #expect(throws: NATSError.self) { try await connection.jetStream.publish("\(subject).b.x", [1]) }
            let third = try await connection.jetStream.ensureStream(name: stream, subjects: ["\(subject).a.>"], maxAge: .seconds(3600))
            #expect(third.differences.isEmpty)
            await #expect(throws: NATSError.self) {
                try await connection.jetStream.ensureStream(name: stream, subjects: ["\(subject).a.>"], replicas: 6)
            }
        }
    }

    @Test func concurrentEnsuresFromReplicasAllSucceed() async throws {
        try await withStream { connection, stream, subject in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await connection.jetStream.ensureStream(name: stream, subjects: ["\(subject).>"], maxAge: .seconds(600))
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test func publishWithoutStreamIsNoResponders() async throws {
        let connection = try await TestNATS.connect()
        await #expect(throws: NATSError.noResponders) {
            _ = try await connection.jetStream.publish(TestNATS.unique("nostream"), [1])
        }
        await connection.drainAndClose()
    }
}

@Suite("Publish, durable consume and ack")
struct PublishConsumeTests {
    @Test func publishedMessagesAreConsumedAndAcked() async throws {
        try await withStream { connection, stream, subject in
            let first = try await connection.jetStream.publish("\(subject).one", Array("one".utf8))
            let second = try await connection.jetStream.publish("\(subject).two", Array("two".utf8), headers: ["X-Trace": "t1"])
            #expect(second == first + 1)
            let consumer = try connection.jetStream.consume(stream: stream, durable: "worker", filterSubject: "\(subject).>")
            let a = try await nextMessage(consumer)
            let b = try await nextMessage(consumer)
            #expect(String(decoding: a.payload, as: UTF8.self) == "one")
            #expect(a.subject == "\(subject).one")
            #expect(a.deliveryCount == 1)
            #expect(b.headers["X-Trace"] == "t1")
            #expect(b.streamSequence == second)
            try await a.ack()
            try await b.ack()
            consumer.stop()
        }
    }

    @Test func consumerThatWasDownCatchesUp() async throws {
        try await withStream { connection, stream, subject in
            let before = try connection.jetStream.consume(stream: stream, durable: "catchup", filterSubject: nil)
            _ = try await connection.jetStream.publish("\(subject).x", Array("first".utf8))
            try await nextMessage(before).ack()
            before.stop()
            // Published while no replica consumes.
            _ = try await connection.jetStream.publish("\(subject).x", Array("second".utf8))
            let after = try connection.jetStream.consume(stream: stream, durable: "catchup", filterSubject: nil)
            let message = try await nextMessage(after)
            #expect(String(decoding: message.payload, as: UTF8.self) == "second")
            try await message.ack()
            after.stop()
        }
    }

    @Test func missingStreamFailsTheIteration() async throws {
        let connection = try await TestNATS.connect()
        let consumer = try connection.jetStream.consume(stream: TestNATS.unique("missing"), durable: "d", filterSubject: nil)
        await #expect(throws: NATSError.jetStream(10059)) {
            var iterator = consumer.makeAsyncIterator()
            _ = try await iterator.next()
        }
        await connection.drainAndClose()
    }
}

@Suite("Un-acked messages are delivered again")
struct RedeliveryTests {
    @Test func unackedMessageIsRedeliveredAfterAckWait() async throws {
        try await withStream { connection, stream, subject in
            _ = try await connection.jetStream.publish("\(subject).r", Array("again".utf8))
            // The server's ack-wait clock starts at delivery, which is after the consumer starts:
            // timing from here, redelivery cannot come before ackWait, however loaded the machine.
            let started = ContinuousClock.now
            let consumer = try connection.jetStream.consume(stream: stream, durable: "redeliver", filterSubject: nil,
                                                           ackWait: .seconds(1))
            let first = try await nextMessage(consumer)
            #expect(first.deliveryCount == 1)
            let second = try await nextMessage(consumer, within: .seconds(15))
            // The same message again. Its count is the deliveries the server believes reached a client: nats-server
            // takes one back when it sees a delivery fail (`didNotDeliver`, `decDeliveryCount`: a fetch whose 1 s wait
            // ended as the message went out), so on a loaded machine a redelivery may read 1 again (seen once in the
            // full run); never less than the first.
            #expect(second.deliveryCount >= first.deliveryCount)
            #expect(second.streamSequence == first.streamSequence)
            #expect((ContinuousClock.now - started).seconds >= 1.0)
            try await second.ack()
            consumer.stop()
        }
    }

    @Test func nakRedeliversAtOnceAndTermStops() async throws {
        try await withStream { connection, stream, subject in
            _ = try await connection.jetStream.publish("\(subject).n", [7])
            let consumer = try connection.jetStream.consume(stream: stream, durable: "nak", filterSubject: nil,
                                                           ackWait: .seconds(30))
            try await nextMessage(consumer).nak()
            let again = try await nextMessage(consumer, within: .seconds(15))
            #expect(again.deliveryCount == 2)
            try await again.term()
            #expect(try await messageIfAny(consumer, within: .milliseconds(1500)) == nil)
            consumer.stop()
        }
    }
}

@Suite("Deduplication by message ID")
struct DeduplicationTests {
    @Test func samePublishIDIsStoredOnce() async throws {
        try await withStream { connection, stream, subject in
            let first = try await connection.jetStream.publish("\(subject).d", [1], messageID: "order-42")
            let duplicate = try await connection.jetStream.publish("\(subject).d", [1], messageID: "order-42")
            let other = try await connection.jetStream.publish("\(subject).d", [2], messageID: "order-43")
            #expect(duplicate == first)
            #expect(other == first + 1)
            let consumer = try connection.jetStream.consume(stream: stream, durable: "dedup", filterSubject: nil)
            let a = try await nextMessage(consumer)
            let b = try await nextMessage(consumer)
            #expect(a.payload == [1])
            #expect(b.payload == [2])
            try await a.ack()
            try await b.ack()
            consumer.stop()
        }
    }
}

/// Up to `count` messages of `messages`: fewer when the rest do not come within `timeout`.
private func read(_ count: Int, from messages: Subscription<StreamMessage>, within timeout: Duration = .seconds(10)) async -> [StreamMessage] {
    let reader = Task {
        var read: [StreamMessage] = []
        for await message in messages {
            read.append(message)
            if read.count == count { break }
        }
        return read
    }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        reader.cancel()
    }
    let read = await reader.value
    timer.cancel()
    return read
}

@Suite("Following a stream from a point in time")
struct FollowTests {
    @Test func storedMessagesSinceTheStartThenNewOnesInEveryFollower() async throws {
        try await withStream { connection, stream, subject in
            _ = try await connection.jetStream.publish("\(subject).a", Array("before".utf8))
            // Following starts at the whole second before `since`.
            try await Task.sleep(for: .milliseconds(1100))
            let since = Date()
            try await Task.sleep(for: .milliseconds(200))
            _ = try await connection.jetStream.publish("\(subject).a", Array("first".utf8))
            _ = try await connection.jetStream.publish("\(subject).b", Array("other subject".utf8))
            let last = try await connection.jetStream.publish("\(subject).a", Array("second".utf8))

            let one = try await connection.jetStream.follow(stream: stream, subject: "\(subject).a", since: since)
            let two = try await connection.jetStream.follow(stream: stream, subject: "\(subject).a", since: since)
            #expect(one.caughtUpAt == last && two.caughtUpAt == last)
            let live = try await connection.jetStream.publish("\(subject).a", Array("live".utf8))
            for follower in [one, two] {
                let read = await read(3, from: follower.messages)
                #expect(read.map { String(decoding: $0.payload, as: UTF8.self) } == ["first", "second", "live"])
                #expect(read.last?.streamSequence == live)
                #expect(read.allSatisfy { $0.subject == "\(subject).a" })
                follower.messages.unsubscribe()
            }
        }
    }

    @Test func nothingStoredSinceTheStartIsCaughtUpAtOnce() async throws {
        try await withStream { connection, stream, subject in
            _ = try await connection.jetStream.publish("\(subject).a", Array("old".utf8))
            try await Task.sleep(for: .milliseconds(1100))
            let follower = try await connection.jetStream.follow(stream: stream, subject: "\(subject).a", since: Date())
            #expect(follower.caughtUpAt == 0)
            let quiet = try await connection.jetStream.follow(stream: stream, subject: "\(subject).none", since: .distantPast)
            #expect(quiet.caughtUpAt == 0)
            _ = try await connection.jetStream.publish("\(subject).a", Array("new".utf8))
            #expect(await read(1, from: follower.messages).map { String(decoding: $0.payload, as: UTF8.self) } == ["new"])
            follower.messages.unsubscribe()
            quiet.messages.unsubscribe()
        }
    }

    @Test func aMissingStreamIsJetStreamError10059() async throws {
        let connection = try await TestNATS.connect()
        await #expect(throws: NATSError.jetStream(10059)) {
            _ = try await connection.jetStream.follow(stream: TestNATS.unique("missing"), subject: "nothing.here", since: Date())
        }
        await connection.drainAndClose()
    }
}
