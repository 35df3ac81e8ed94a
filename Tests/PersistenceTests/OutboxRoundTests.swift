import Contracts
import Foundation
import Logging
import Synchronization
import Testing
@testable import Persistence

/// One round of the outbox (`Outbox.publishBatch`) on rows in memory and a stand-in for JetStream: what is
/// published, deleted, kept aside and handed back, and what the round reports, in milliseconds. The same
/// round on PostgreSQL and nats-server is `IntegrationTests/OutboxTests`.
@Suite("Outbox round: publish, delete, keep aside, hand back")
struct OutboxRoundTests {
    private struct Unreadable: Error {}
    private struct Refused: Error {}

    /// Rows in memory: each a key and what it makes; records each claim and finish.
    private final class Rows: OutboxRows {
        struct State {
            var due: [OutboxRow]
            var finished: [(published: [Int64], parked: [Int64], handBack: [Int64])] = []
            var claimFails = false
            var finishFails = false
        }
        let state: Mutex<State>
        var tableName: String { "test.outbox" }

        init(_ rows: [OutboxRow]) { state = Mutex(State(due: rows)) }

        func claim() async throws -> [OutboxRow] {
            try state.withLock { state in
                if state.claimFails { throw Refused() }
                defer { state.due.removeAll() }
                return state.due.sorted { $0.key < $1.key }
            }
        }

        func finish(published: [Int64], parked: [Int64], handBack: [Int64]) async throws {
            try state.withLock { state in
                if state.finishFails { throw Refused() }
                state.finished.append((published, parked, handBack))
            }
        }

        var finished: (published: [Int64], parked: [Int64], handBack: [Int64])? {
            state.withLock { $0.finished.last }
        }
    }

    /// JetStream's stand-in: refuses the subjects it is told to, records what it was sent, in order.
    private final class Publisher: EventPublishing {
        let refusing: Set<String>
        let sent = Mutex<[[Outbox.Message]]>([])

        init(refusing: Set<String> = []) { self.refusing = refusing }

        /// The event IDs of each call, in order.
        var batches: [[String]] { sent.withLock { $0.map { $0.map(\.id) } } }

        func publishAll(_ messages: [Outbox.Message]) async -> [Result<Void, any Error>] {
            sent.withLock { $0.append(messages) }
            return messages.map { refusing.contains($0.subject) ? .failure(Refused()) : .success(()) }
        }
    }

    private static let type = EventType<MemberCreated>("outbox-test.created")
    private static let refused = EventType<MemberCreated>("outbox-test.refused")

    private static func row(_ key: Int64, _ type: EventType<MemberCreated> = type) -> OutboxRow {
        OutboxRow(key: key, message: Result {
            try Outbox.Message(type, MemberCreated(memberId: key, provider: .google), id: "event-\(key)", occurredAt: Date())
        })
    }

    private static func outbox(_ rows: Rows, _ publisher: Publisher) -> Outbox {
        Outbox(rows: rows, events: publisher, logger: Logger(label: "outbox-round", level: .critical))
    }

    @Test("every claimed row is sent in key order with its event ID, then deleted")
    func allPublished() async {
        let rows = Rows([Self.row(3), Self.row(1), Self.row(2)])
        let publisher = Publisher()
        #expect(await Self.outbox(rows, publisher).publishBatch() == .published(3))
        #expect(publisher.batches == [["event-1", "event-2", "event-3"]])
        #expect(rows.finished?.published == [1, 2, 3] && rows.finished?.parked == [] && rows.finished?.handBack == [])
    }

    @Test("a row that makes no event, or whose making throws, is kept aside; the rows after it go out")
    func unreadableKeptAside() async {
        let rows = Rows([Self.row(1), OutboxRow(key: 2, message: .success(nil)), OutboxRow(key: 3, message: .failure(Unreadable())),
                         Self.row(4)])
        let publisher = Publisher()
        #expect(await Self.outbox(rows, publisher).publishBatch() == .published(4))
        #expect(publisher.batches == [["event-1", "event-4"]])
        #expect(rows.finished?.published == [1, 4] && rows.finished?.parked == [2, 3] && rows.finished?.handBack == [])
    }

    @Test("one refused publish: the stored events are deleted, the refused one handed back, the round failed")
    func oneRefused() async {
        let rows = Rows([Self.row(1), Self.row(2, Self.refused), Self.row(3)])
        #expect(await Self.outbox(rows, Publisher(refusing: [Self.refused.subject])).publishBatch() == .failed)
        #expect(rows.finished?.published == [1, 3] && rows.finished?.handBack == [2])
    }

    @Test("nothing due: nothing sent, nothing finished")
    func nothingDue() async {
        let rows = Rows([])
        let publisher = Publisher()
        #expect(await Self.outbox(rows, publisher).publishBatch() == .published(0))
        #expect(publisher.batches.isEmpty && rows.finished == nil)
    }

    @Test("a table that cannot be read, or rows that cannot be finished, fail the round (published rows go again after the lease)")
    func databaseFailures() async {
        let unreadable = Rows([Self.row(1)])
        unreadable.state.withLock { $0.claimFails = true }
        let publisher = Publisher()
        #expect(await Self.outbox(unreadable, publisher).publishBatch() == .failed)
        #expect(publisher.batches.isEmpty)
        let unfinished = Rows([Self.row(1)])
        unfinished.state.withLock { $0.finishFails = true }
        #expect(await Self.outbox(unfinished, publisher).publishBatch() == .failed)
        #expect(publisher.batches.count == 1)
    }

    @Test("the wait after failed rounds: 1 s doubling to 30 s, each between half and all of that")
    func backoff() {
        for failures in 1...8 {
            let ceiling = min(30.0, pow(2, Double(failures - 1)))
            let delay = Outbox.backoff(failures: failures)
            #expect(delay <= .seconds(ceiling) && delay >= .seconds(ceiling / 2), "after \(failures) failures: \(delay)")
        }
    }
}
