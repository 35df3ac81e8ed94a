import Contracts
import Foundation
import JSON
import Logging
import Messaging
import NATS
import Postgres
import Testing
import TestSupport
@testable import Persistence

/// The shared outbox (`Shared/Persistence/Outbox.swift`) on a table of its own in a fresh database,
/// publishing to a private nats-server: order, de-duplication IDs, leases, failures and wake-ups.
@Suite("Outbox: claim with a lease, publish in order, delete, back off")
struct OutboxTests {
    static let logger = Logger(label: "outbox-tests", level: .critical)
    static let type = EventType<MemberCreated>("outbox-test.created")

    /// A fresh database with `outbox_test.events`, a private JetStream with the events stream, and a
    /// core subscription that sees every publish (duplicates included, which JetStream would hide).
    struct Fixture {
        let database: PostgresClient
        let nats: TestNATSServer
        let connection: NATSConnection
        let seen: NATSSubscription

        static func make(stream: Bool = true) async throws -> Fixture {
            let url = try await TestStack.freshDatabase()
            let database = PostgresClient(configuration: try PostgresConfiguration(url: url), logger: OutboxTests.logger)
            _ = try await database.query("CREATE SCHEMA outbox_test")
            _ = try await database.query("""
                CREATE TABLE outbox_test.events (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, event_id TEXT NOT NULL, member_id BIGINT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(), attempts INT NOT NULL DEFAULT 0,
                    available_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """)
            let nats = try await TestNATSServer.start(jetStream: true)
            let connection = try await NATSConnection.connect(TestIdentities.configuration(url: nats.url, name: "outbox-tests"),
                                                              logger: OutboxTests.logger)
            if stream { try await EventPublisher(connection: connection, logger: OutboxTests.logger).ensureStream() }
            let seen = try connection.subscribe(OutboxTests.type.subject)
            try await connection.flush(timeout: .seconds(5))
            return Fixture(database: database, nats: nats, connection: connection, seen: seen)
        }

        /// The outbox on the table; with `unreadable`, the rows of those members cannot be made into events
        /// (the closure throws for the first, returns nil for the rest, as a row of an unknown type); with
        /// `unpublishable`, those members' events go to a subject no stream captures, so their publish fails.
        func outbox(pollInterval: Duration = .seconds(1), unreadable: [Int64] = [], unpublishable: [Int64] = []) -> Outbox {
            Outbox(table: .init(name: "outbox_test.events", key: "id", columns: ["event_id", "member_id", "created_at"]),
                   database: database, connection: connection, pollInterval: pollInterval, logger: OutboxTests.logger) { row in
                let member = try row.int("member_id")
                if member == unreadable.first { throw OutboxTestError() }
                if unreadable.contains(member) { return nil }
                var message = try Outbox.Message(OutboxTests.type, MemberCreated(memberId: member, provider: .google),
                                                 id: try row.string("event_id"), occurredAt: try row.date("created_at"))
                if unpublishable.contains(member) { message.subject = "outbox-test.unstored" }
                return message
            }
        }

        /// Writes events for members `members`, in that order; returns their event IDs.
        @discardableResult
        func write(_ members: [Int64], availableIn seconds: Int = 0) async throws -> [String] {
            var ids: [String] = []
            for member in members {
                let id = UUID().uuidString.lowercased()
                _ = try await database.query("""
                    INSERT INTO outbox_test.events (event_id, member_id, available_at)
                    VALUES (\(id), \(member), now() + make_interval(secs => \(Int64(seconds))))
                    """)
                ids.append(id)
            }
            return ids
        }

        func remaining() async throws -> Int64 {
            try await database.query("SELECT count(*) AS n FROM outbox_test.events").rows[0].int("n")
        }

        /// The next `count` messages published (event ID, member), or fewer after `window`.
        func received(_ count: Int, within window: Duration = .seconds(5)) async -> [(id: String, member: Int64)] {
            await withTaskGroup(of: [(id: String, member: Int64)].self) { group in
                group.addTask {
                    var messages: [(id: String, member: Int64)] = []
                    for await message in seen {
                        let event = try? MessageCoding.decode(EventEnvelope<MemberCreated>.self, from: message.payload)
                        messages.append((message.headers["Nats-Msg-Id"] ?? "none", event?.data.memberId ?? -1))
                        #expect(event?.id == message.headers["Nats-Msg-Id"], "the envelope's ID is the message ID")
                        if messages.count == count { break }
                    }
                    return messages
                }
                group.addTask {
                    try? await Task.sleep(for: window)
                    seen.unsubscribe()
                    return []
                }
                let first = await group.next() ?? []
                group.cancelAll()
                return first
            }
        }

        func close() async {
            await connection.drainAndClose()
            nats.stop()
            await database.close()
        }
    }

    @Test("rows are published in key order with their event ID as Nats-Msg-Id, then deleted")
    func publishesInOrder() async throws {
        let fixture = try await Fixture.make()
        let ids = try await fixture.write(Array(1...20))
        #expect(await fixture.outbox().publishBatch() == .published(20))
        let received = await fixture.received(20)
        #expect(received.map(\.id) == ids)
        #expect(received.map(\.member) == Array(1...20))
        #expect(try await fixture.remaining() == 0)
        await fixture.close()
    }

    @Test("two replicas on one table never publish the same row, and together publish every row")
    func replicasShareRows() async throws {
        let fixture = try await Fixture.make()
        let ids = try await fixture.write(Array(1...600))
        let (first, second) = (fixture.outbox(), fixture.outbox())
        async let one = first.publishBatch()
        async let two = second.publishBatch()
        async let three = first.publishBatch()
        _ = await (one, two, three)
        let received = await fixture.received(600, within: .seconds(10))
        #expect(received.count == 600)
        #expect(Set(received.map(\.id)) == Set(ids), "every row published exactly once")
        #expect(try await fixture.remaining() == 0)
        await fixture.close()
    }

    @Test("a row another replica claimed is left alone until its lease runs out")
    func leaseHolds() async throws {
        let fixture = try await Fixture.make()
        // As a replica that died mid-publish leaves it: claimed, the lease still running.
        let claimed = try await fixture.write([7], availableIn: 30)
        #expect(await fixture.outbox().publishBatch() == .published(0))
        #expect(await fixture.received(1, within: .milliseconds(500)).isEmpty)
        _ = try await fixture.database.query("UPDATE outbox_test.events SET available_at = now() - interval '1 second'")
        let fresh = Fixture(database: fixture.database, nats: fixture.nats, connection: fixture.connection,
                            seen: try fixture.connection.subscribe(Self.type.subject))
        try await fixture.connection.flush(timeout: .seconds(5))
        #expect(await fixture.outbox().publishBatch() == .published(1))
        #expect(await fresh.received(1).map(\.id) == claimed)
        await fixture.close()
    }

    @Test("while JetStream refuses, nothing is lost: the rows are handed back at once and later go out in order")
    func failureHandsBack() async throws {
        let fixture = try await Fixture.make(stream: false)
        let ids = try await fixture.write([1, 2, 3])
        // No stream captures the subject: every publish gets no acknowledgement and fails.
        #expect(await fixture.outbox().publishBatch() == .failed)
        let due = try await fixture.database.query("SELECT count(*) AS n FROM outbox_test.events WHERE available_at <= now()")
        #expect(try due.rows[0].int("n") == 3, "handed back, not leased for 30 s")
        try await EventPublisher(connection: fixture.connection, logger: Self.logger).ensureStream()
        let more = try await fixture.write([4])
        #expect(await fixture.outbox().publishBatch() == .published(4))
        // The failed try sent the three rows once (no stream stored them); then all go in key order.
        #expect(await fixture.received(7).map(\.id) == ids + ids + more)
        #expect(try await fixture.remaining() == 0)
        await fixture.close()
    }

    @Test("one failed publish in a batch: the stored events are deleted and not sent again, the failed one is due again at once")
    func partialFailure() async throws {
        let fixture = try await Fixture.make()
        let ids = try await fixture.write([1, 2, 3])
        #expect(await fixture.outbox(unpublishable: [2]).publishBatch() == .failed)
        #expect(await fixture.received(2).map(\.id) == [ids[0], ids[2]])
        let due = try await fixture.database.query("SELECT member_id FROM outbox_test.events WHERE available_at <= now()")
        #expect(try due.rows.map { try $0.int("member_id") } == [2], "only the failed row is left, handed back")
        // `received` ends its subscription: a fresh one sees what the next round sends.
        let fresh = Fixture(database: fixture.database, nats: fixture.nats, connection: fixture.connection,
                            seen: try fixture.connection.subscribe(Self.type.subject))
        try await fixture.connection.flush(timeout: .seconds(5))
        #expect(await fixture.outbox().publishBatch() == .published(1))
        // Sent in key order: a stored one sent again would come first.
        #expect(await fresh.received(1).map(\.id) == [ids[1]], "the stored ones are not sent again")
        #expect(try await fixture.remaining() == 0)
        await fixture.close()
    }

    @Test("a row that cannot be made into an event is kept aside, longer each time up to an hour, not deleted, and holds up none after it")
    func unreadableKept() async throws {
        let fixture = try await Fixture.make()
        let ids = try await fixture.write([1, 2, 3, 4])
        #expect(await fixture.outbox(unreadable: [2, 3]).publishBatch() == .published(4))
        #expect(await fixture.received(2).map(\.id) == [ids[0], ids[3]])
        #expect(try await fixture.remaining() == 2)
        /// The kept rows' members and how many seconds from now each is due.
        func kept() async throws -> [(member: Int64, seconds: Int64)] {
            try await fixture.database.query("""
                SELECT member_id, extract(epoch FROM available_at - now())::bigint AS seconds FROM outbox_test.events ORDER BY id
                """).rows.map { (try $0.int("member_id"), try $0.int("seconds")) }
        }
        // Claimed once: due in 30 s.
        let first = try await kept()
        #expect(first.map(\.member) == [2, 3] && first.allSatisfy { (25...30).contains($0.seconds) }, "\(first)")
        // Claimed again and again: the wait doubles, at most an hour.
        for _ in 0..<9 {
            _ = try await fixture.database.query("UPDATE outbox_test.events SET available_at = now()")
            #expect(await fixture.outbox(unreadable: [2, 3]).publishBatch() == .published(2))
        }
        let later = try await kept()
        #expect(later.map(\.member) == [2, 3] && later.allSatisfy { (3590...3600).contains($0.seconds) }, "\(later)")
        await fixture.close()
    }

    @Test("a signal after a commit publishes at once, without waiting for the poll")
    func signalWakes() async throws {
        let fixture = try await Fixture.make()
        let outbox = fixture.outbox(pollInterval: .seconds(60))
        // The first round publishes this one; seen, that round claimed before the write below, and the next
        // starts only when the outbox wakes: at a signal, or after the 60 s poll.
        let first = try await fixture.write([41])
        let running = Task { try await outbox.run() }
        try #require(await fixture.received(1, within: .seconds(10)).map(\.id) == first, "the first round published")
        // `received` ends its subscription: a fresh one sees what the next round sends.
        let fresh = Fixture(database: fixture.database, nats: fixture.nats, connection: fixture.connection,
                            seen: try fixture.connection.subscribe(Self.type.subject))
        try await fixture.connection.flush(timeout: .seconds(5))
        let ids = try await fixture.write([42])
        outbox.signal()
        #expect(await fresh.received(1, within: .seconds(3)).map(\.id) == ids)
        running.cancel()
        _ = await running.result
        await fixture.close()
    }

    @Test("the back-off grows with failures in a row, is jittered, and stays within 30 s")
    func backoffIsBounded() {
        for failures in 1...12 {
            let ceiling = Double(min(30, 1 << min(failures - 1, 5)))
            let delay = Outbox.backoff(failures: failures)
            #expect(delay >= .milliseconds(Int64(ceiling * 500)) && delay <= .seconds(ceiling), "failures \(failures): \(delay)")
        }
        let samples = Set((0..<20).map { _ in Outbox.backoff(failures: 4) })
        #expect(samples.count > 1, "no jitter")
    }
}

/// What the test outbox's message closure throws for an unreadable row.
private struct OutboxTestError: Error {}
