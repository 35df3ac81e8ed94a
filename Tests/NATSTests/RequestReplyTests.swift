import NATS
import Testing

@Suite("Request/reply through a queue-group responder")
struct RequestReplyTests {
    @Test func roundTrip() async throws {
        let connection = try await TestNATS.connect()
        let subject = TestNATS.unique("echo")
        try await TestNATS.respond(on: connection, subject: subject) { Array("re: ".utf8) + $0.payload }
        let reply = try await connection.request(subject, Array("hello".utf8), timeout: .seconds(10))
        #expect(String(decoding: reply.payload, as: UTF8.self) == "re: hello")
        await connection.drainAndClose()
    }

    @Test func headersTravelBothWays() async throws {
        let connection = try await TestNATS.connect()
        let subject = TestNATS.unique("headers")
        let subscription = try connection.subscribe(subject, queue: "workers")
        Task {
            for await message in subscription {
                try? connection.respond(to: message, [], headers: ["X-Echo": message.headers["X-Request"] ?? "missing"])
            }
        }
        try await connection.flush(timeout: .seconds(10))
        let reply = try await connection.request(subject, [1], headers: ["X-Request": "abc"], timeout: .seconds(10))
        #expect(reply.headers["X-Echo"] == "abc")
        await connection.drainAndClose()
    }
}

@Suite("Requests sent together, replies waited for together")
struct RequestAllTests {
    @Test("each request gets its own reply or failure, in the order sent")
    func repliesInOrder() async throws {
        let connection = try await TestNATS.connect()
        let echo = TestNATS.unique("echo-all")
        // Answered on cnats's delivery thread, not by a task: under the whole suite's load Swift's pool can be
        // seconds late (measured 1.7 s to the first message), which would time requests out for the pool's sake.
        let responder = try connection.subscribe(echo, queue: "workers") { message in
            try? connection.respond(to: message, Array("re: ".utf8) + message.payload)
        }
        try await connection.flush(timeout: .seconds(10))
        var requests: [NATSConnection.Request] = []
        var echoes = 0
        for index in 0..<52 {
            if index == 10 {
                requests.append(NATSConnection.Request(TestNATS.unique("nobody"), []))
            } else if index == 31 {
                requests.append(NATSConnection.Request("bad subject", []))
            } else {
                requests.append(NATSConnection.Request(echo, Array("\(echoes)".utf8)))
                echoes += 1
            }
        }
        let results = await connection.requestAll(requests, timeout: .seconds(30))
        #expect(results.count == 52)
        let echoed = results.enumerated().filter { ![10, 31].contains($0.offset) }
            .map { result in Result { String(decoding: try result.element.get().payload, as: UTF8.self) } }
            .map { result in (try? result.get()) ?? "failed: \(result)" }
        #expect(echoed == (0..<50).map { "re: \($0)" })
        #expect(throws: NATSError.noResponders) { try results[10].get() }
        #expect(throws: NATSError.self) { try results[31].get() }  // the subject with a space, refused before sending
        #expect(await connection.requestAll([], timeout: .seconds(1)).isEmpty)
        responder.drain()
        await connection.drainAndClose()
    }

    @Test("requests that get no answer time out together, not one after another")
    func timeoutsTogether() async throws {
        let connection = try await TestNATS.connect()
        let silent = TestNATS.unique("silent-all")
        let quiet = try connection.subscribe(silent)  // Receives, never answers.
        try await connection.flush(timeout: .seconds(10))
        let started = ContinuousClock.now
        let results = await connection.requestAll(Array(repeating: NATSConnection.Request(silent, []), count: 5), timeout: .seconds(2))
        // One after another would take 10 s; together, 2 s and whatever the loaded machine adds.
        #expect((ContinuousClock.now - started).seconds < 9)
        for result in results { #expect(throws: NATSError.timeout) { try result.get() } }
        quiet.unsubscribe()
        await connection.drainAndClose()
    }

    @Test("cancelling the caller fails every request still waiting, at once")
    func cancelled() async throws {
        let connection = try await TestNATS.connect()
        let silent = TestNATS.unique("silent-cancel")
        let quiet = try connection.subscribe(silent)
        try await connection.flush(timeout: .seconds(10))
        let waiting = Task { await connection.requestAll(Array(repeating: NATSConnection.Request(silent, []), count: 3), timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        waiting.cancel()
        let results = await waiting.value
        #expect((ContinuousClock.now - started).seconds < 10)  // far sooner than the 30 s timeout
        #expect(results.count == 3)
        for result in results { #expect(throws: CancellationError.self) { try result.get() } }
        // A task cancelled before it asks sends nothing and fails every request.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await connection.requestAll([NATSConnection.Request(silent, [])], timeout: .seconds(30))
        }
        for result in await early.value { #expect(throws: CancellationError.self) { try result.get() } }
        quiet.unsubscribe()
        await connection.drainAndClose()
    }

    @Test("on a closed connection every request fails with connectionClosed")
    func closedConnection() async throws {
        let connection = try await TestNATS.connect()
        await connection.drainAndClose()
        let results = await connection.requestAll([NATSConnection.Request("anything", []), NATSConnection.Request("other", [])],
                                                  timeout: .seconds(5))
        #expect(results.count == 2)
        for result in results { #expect(throws: NATSError.connectionClosed) { try result.get() } }
    }
}

@Suite("Queue group members share the load")
struct QueueGroupTests {
    @Test func twoRespondersBothGetWork() async throws {
        let first = try await TestNATS.connect("responder-1")
        let second = try await TestNATS.connect("responder-2")
        let requester = try await TestNATS.connect("requester")
        let subject = TestNATS.unique("shared")
        try await TestNATS.respond(on: first, subject: subject) { _ in Array("1".utf8) }
        try await TestNATS.respond(on: second, subject: subject) { _ in Array("2".utf8) }
        var counts: [String: Int] = [:]
        for _ in 0..<100 {
            let reply = try await requester.request(subject, [], timeout: .seconds(10))
            counts[String(decoding: reply.payload, as: UTF8.self), default: 0] += 1
        }
        #expect(counts["1", default: 0] > 0)
        #expect(counts["2", default: 0] > 0)
        #expect(counts.values.reduce(0, +) == 100)
        for connection in [first, second, requester] { await connection.drainAndClose() }
    }
}

@Suite("No responders fails fast")
struct NoRespondersTests {
    @Test func requestWithoutSubscriberThrowsNoResponders() async throws {
        let connection = try await TestNATS.connect()
        let started = ContinuousClock.now
        await #expect(throws: NATSError.noResponders) {
            _ = try await connection.request(TestNATS.unique("nobody"), [], timeout: .seconds(10))
        }
        #expect((ContinuousClock.now - started).seconds < 5)  // far sooner than the timeout
        await connection.drainAndClose()
    }
}

@Suite("Timeout when the responder stays silent")
struct TimeoutTests {
    @Test func silentResponderTimesOut() async throws {
        let connection = try await TestNATS.connect()
        let subject = TestNATS.unique("silent")
        let subscription = try connection.subscribe(subject)  // Receives, never answers.
        try await connection.flush(timeout: .seconds(10))
        let started = ContinuousClock.now
        await #expect(throws: NATSError.timeout) {
            _ = try await connection.request(subject, [], timeout: .milliseconds(300))
        }
        let elapsed = (ContinuousClock.now - started).seconds
        #expect(elapsed >= 0.29 && elapsed < 4)  // the 300 ms timeout, not a hang
        subscription.unsubscribe()
        await connection.drainAndClose()
    }
}

@Suite("Concurrent requests get their own answers")
struct ConcurrentRequestTests {
    @Test func twoHundredConcurrentRequests() async throws {
        let responder = try await TestNATS.connect("responder")
        let requester = try await TestNATS.connect("requester")
        let subject = TestNATS.unique("concurrent")
        try await TestNATS.respond(on: responder, subject: subject) { Array("answer-".utf8) + $0.payload }
        let mismatches = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let reply = try await requester.request(subject, Array("\(index)".utf8), timeout: .seconds(10))
                    return String(decoding: reply.payload, as: UTF8.self) == "answer-\(index)"
                }
            }
            var mismatches = 0
            for try await matched in group where !matched { mismatches += 1 }
            return mismatches
        }
        #expect(mismatches == 0)
        await requester.drainAndClose()
        await responder.drainAndClose()
    }
}

@Suite("Cancelling the task ends a pending request")
struct CancellationTests {
    @Test func cancelledRequestThrowsPromptly() async throws {
        let connection = try await TestNATS.connect()
        let subject = TestNATS.unique("slow")
        let subscription = try connection.subscribe(subject)  // Never answers.
        try await connection.flush(timeout: .seconds(10))
        let task = Task { try await connection.request(subject, [], timeout: .seconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect((ContinuousClock.now - started).seconds < 5)  // far sooner than the timeout
        subscription.unsubscribe()
        await connection.drainAndClose()
    }
}
