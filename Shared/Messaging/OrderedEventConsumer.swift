import Contracts
import Foundation
import Logging
import NATS
import Synchronization

/// One durable JetStream consumer whose events are handled in stream order per key (a member) and concurrently
/// across keys, each retried in place until its handler is done with it: while an event of a key waits for a
/// retry, the later events of that key wait behind it, and other keys go on. For a consumer that hands events to
/// someone who must see a member's events in order and may be away for hours (the webhook relay).
///
/// It holds at most ``Settings/maxHeld`` events at once (fetched and not yet settled), reporting progress on each
/// to the server every third of the ack wait, so that none goes to another replica while it is held; the rest
/// waits in the stream. Events its `wants` refuses are acknowledged unhandled. A handler's
/// ``Outcome/stop`` ends the consumer: every event it holds goes back to the stream at once, for whoever consumes
/// next. A lost connection or a deleted consumer is waited out and the consumer bound again; events held then
/// go back to the stream.
public struct OrderedEventConsumer: Sendable {
    /// One event, as it came, with the key it is ordered by.
    public struct Event: Sendable {
        /// The subject it was published on (`events.member.created`).
        public let subject: String
        /// The event's JSON (an ``EventEnvelope``), as stored.
        public let payload: [UInt8]
        /// How often the server delivered it (1 the first time).
        public let deliveryCount: Int
        /// When the stream stored it.
        public let storedAt: Date
        /// Its key: events of one key are handled one at a time, in order; nil for none.
        public let key: String?

        /// An event (the tests make their own).
        public init(subject: String, payload: [UInt8], deliveryCount: Int = 1, storedAt: Date = Date(), key: String? = nil) {
            self.subject = subject
            self.payload = payload
            self.deliveryCount = deliveryCount
            self.storedAt = storedAt
            self.key = key
        }
    }

    /// What the handler made of an event.
    public enum Outcome: Sendable, Equatable {
        /// Handled: acknowledge it.
        case done
        /// It can never be handled: terminate it (the server never delivers it again).
        case drop
        /// Not now: call the handler again with it after the delay (the later events of its key wait).
        case retry(after: Duration)
        /// Stop consuming: this event and every held one go back to the stream.
        case stop
    }

    /// Why ``run()`` returned.
    public enum Ending: Sendable, Equatable {
        /// A handler said ``Outcome/stop``.
        case stopped
        /// The task was cancelled.
        case cancelled
    }

    /// The handler: an event and the attempt on it (1 the first time this replica tries it).
    public typealias Handler = @Sendable (Event, _ attempt: Int) async -> Outcome

    /// How the consumer is made and how much it holds.
    public struct Settings: Sendable {
        /// The durable consumer's name.
        public var durable: String
        /// The subjects it reads. Default `events.>`.
        public var filterSubject = "events.>"
        /// Whether it creates the consumer (true) or binds one someone else made (an identity that may create none).
        public var createsConsumer = true
        /// The server's ack wait (progress is reported every third of it): how long the events a replica held when
        /// it died wait before another takes them. Default 30 s.
        public var ackWait: Duration = .seconds(30)
        /// Most events held at once. Default 256.
        public var maxHeld = 256
        /// Most events handled at once (each of another key). Default 8.
        public var maxConcurrent = 8
        /// How long after it was fetched an event's progress is reported at most. Default a day.
        public var maxHandlingTime: Duration = .seconds(86_400)

        /// Settings for the durable consumer `durable`, the rest at their defaults.
        public init(durable: String) {
            self.durable = durable
        }
    }

    /// What the consumer holds now (for metrics): how many events, and when the oldest of them was stored.
    public final class Holdings: Sendable {
        private let stored = Mutex<[Int: Date]>([:])

        /// Nothing held.
        public init() {}

        /// How many events are held.
        public var count: Int { stored.withLock { $0.count } }
        /// When the oldest held event was stored; nil when none is held.
        public var oldestStoredAt: Date? { stored.withLock { $0.values.min() } }

        fileprivate func add(_ id: Int, _ date: Date) { stored.withLock { $0[id] = date } }
        fileprivate func remove(_ id: Int) { _ = stored.withLock { $0.removeValue(forKey: id) } }
    }

    let connection: NATSConnection
    let settings: Settings
    let wants: @Sendable (String, Date) -> Bool
    let key: @Sendable (String, [UInt8]) -> String?
    let holdings: Holdings
    let logger: Logger
    let handler: Handler

    /// A consumer through `settings.durable`: each event that `wants` takes (by its subject and when it was stored) is
    /// keyed by `key` (from its subject and payload) and handed to `handler`; `holdings` tells what it holds.
    public init(connection: NATSConnection, settings: Settings, holdings: Holdings = Holdings(), logger: Logger,
                wants: @escaping @Sendable (String, Date) -> Bool, key: @escaping @Sendable (String, [UInt8]) -> String?,
                handler: @escaping Handler) {
        var settings = settings
        settings.maxHeld = max(1, settings.maxHeld)
        settings.maxConcurrent = max(1, min(settings.maxConcurrent, settings.maxHeld))
        self.connection = connection
        self.settings = settings
        self.holdings = holdings
        self.logger = logger.with(["nats.durable": settings.durable])
        self.wants = wants
        self.key = key
        self.handler = handler
    }

    /// Consumes until a handler says ``Outcome/stop`` or the task is cancelled.
    public func run() async -> Ending {
        let beats = ProgressBeats(interval: settings.ackWait / 3, logger: logger)
        var ending = Ending.cancelled
        await DurableBinding.run(logger: logger, bind: {
            try connection.jetStream.consume(stream: Events.stream, durable: settings.durable, filterSubject: settings.filterSubject,
                                             ackWait: settings.ackWait, batchSize: min(64, settings.maxHeld),
                                             createsConsumer: settings.createsConsumer, onDemand: true)
        }, consume: { consumer, progressed in
            let next = await consume(consumer, beats: beats, progressed: progressed)
            if next == .finished { ending = .stopped }
            return next
        })
        return ending
    }

    /// One held event.
    private struct Held: Sendable {
        let id: Int
        let message: JetStreamMessage
        let event: Event
        let beat: UInt64
    }

    /// What the consumer's tasks report.
    private enum Signal: Sendable {
        case fetched([JetStreamMessage])
        case readFailed(any Error)
        /// An attempt settled the event (acknowledged, terminated, or given back for a stop).
        case settled(Held, Outcome)
        /// An attempt failed: try `attempt` after `delay`.
        case retrying(Held, attempt: Int, delay: Duration)
        /// A retry's wait is over.
        case due(Held, attempt: Int)
    }

    /// Which held events wait, which retries are due, and which keys are taken. Only attempts in progress count against
    /// the concurrency: an event waiting for its retry keeps its key (the key's later events wait behind it) but no
    /// place, so a few events an endpoint keeps refusing hold up no other member.
    private struct Schedule {
        /// Fetched, never tried, in stream order.
        var waiting: [Held] = []
        /// Retries whose wait is over, in the order they came due.
        var due: [(held: Held, attempt: Int)] = []
        var busyKeys: Set<String> = []
        var running = 0
        var sleeping = 0

        /// The attempts that may start now, up to `limit` running: due retries first, then waiting events in order, each
        /// of a key not taken.
        mutating func startable(limit: Int) -> [(held: Held, attempt: Int)] {
            var started: [(held: Held, attempt: Int)] = []
            while running < limit, !due.isEmpty {
                started.append(due.removeFirst())
                running += 1
            }
            guard running < limit, !waiting.isEmpty else { return started }
            var kept: [Held] = []
            for held in waiting {
                if running < limit, held.event.key.map({ !busyKeys.contains($0) }) ?? true {
                    if let key = held.event.key { busyKeys.insert(key) }
                    running += 1
                    started.append((held, 1))
                } else {
                    kept.append(held)
                }
            }
            waiting = kept
            return started
        }

        mutating func finish(_ held: Held) {
            running -= 1
            if let key = held.event.key { busyKeys.remove(key) }
        }
    }

    private func consume(_ consumer: JetStreamConsumer, beats: ProgressBeats, progressed: () -> Void) async -> DurableBinding.Next {
        var schedule = Schedule()
        var nextID = 0
        var ending: DurableBinding.Next?
        var reading = false
        // What goes back to the stream once the consumer stops: the events of a stop, and those fetched after it.
        var handedBack: [JetStreamMessage] = []
        // It fetches only what it has room for: nothing fetched waits unread, without progress reports.
        consumer.allow(settings.maxHeld)
        await withTaskGroup(of: Signal.self) { group in
            while true {
                if ending == nil, !reading {
                    reading = true
                    group.addTask {
                        do {
                            return .fetched(try await consumer.nextBatch(limit: 64))
                        } catch {
                            return .readFailed(error)
                        }
                    }
                }
                if ending == nil {
                    for (held, number) in schedule.startable(limit: settings.maxConcurrent) {
                        group.addTask { await attempt(held, number, beats: beats) }
                    }
                }
                guard let signal = await group.next() else { break }
                switch signal {
                case .fetched(let messages):
                    reading = false
                    if messages.isEmpty {
                        // The consumer stopped (cancelled, or its connection closed): bind again unless cancelled.
                        ending = ending ?? .bindAgain
                    } else if ending != nil {
                        handedBack += messages
                    } else {
                        progressed()
                        for message in messages {
                            guard let held = admit(message, id: nextID, beats: beats) else {
                                consumer.allow(1)
                                continue
                            }
                            nextID += 1
                            schedule.waiting.append(held)
                        }
                    }
                case .readFailed(let error):
                    reading = false
                    logger.warning("event consumer read failed; binding again", ["error": String(describing: error)])
                    ending = ending ?? .bindAgain
                case .settled(let held, let outcome):
                    schedule.finish(held)
                    consumer.allow(1)
                    if outcome == .stop {
                        ending = .finished
                        handedBack.append(held.message)
                    }
                case .retrying(let held, let attempt, let delay):
                    schedule.running -= 1
                    schedule.sleeping += 1
                    group.addTask {
                        try? await Task.sleep(for: delay)
                        return .due(held, attempt: attempt)
                    }
                case .due(let held, let attempt):
                    schedule.sleeping -= 1
                    schedule.due.append((held, attempt))
                }
                if ending != nil {
                    group.cancelAll()
                    consumer.stop()
                    if schedule.running == 0, schedule.sleeping == 0, !reading { break }
                }
            }
        }
        // What waited was never settled: back to the stream at once, with what the consumer had fetched and not handed
        // over yet (an event given back just before the stop may be among them), rather than after the ack wait. In
        // stream order: the server hands out what comes back in the order it came, so that whoever reads next gets each
        // member's events in order.
        for held in schedule.waiting + schedule.due.map(\.held) {
            beats.stop(held.beat)
            holdings.remove(held.id)
            handedBack.append(held.message)
        }
        consumer.stop()
        while let fetched = try? await consumer.nextBatch(limit: 64), !fetched.isEmpty {
            handedBack += fetched
        }
        for message in handedBack.sorted(by: { $0.streamSequence < $1.streamSequence }) {
            try? message.nakWithoutConfirmation()
        }
        return ending ?? .bindAgain
    }

    /// Takes a fetched message: acknowledges one nobody wants here, and holds the others (reporting progress on them).
    private func admit(_ message: JetStreamMessage, id: Int, beats: ProgressBeats) -> Held? {
        let storedAt = Date(timeIntervalSince1970: Double(message.storedAt) / 1e9)
        guard wants(message.subject, storedAt) else {
            try? message.ackWithoutConfirmation()
            return nil
        }
        let event = Event(subject: message.subject, payload: message.payload, deliveryCount: message.deliveryCount, storedAt: storedAt,
                          key: key(message.subject, message.payload))
        holdings.add(id, storedAt)
        return Held(id: id, message: message, event: event, beat: beats.start(message, for: settings.maxHandlingTime))
    }

    /// One attempt at an event; settles it with the server unless it is to be tried again.
    private func attempt(_ held: Held, _ attempt: Int, beats: ProgressBeats) async -> Signal {
        let outcome = Task.isCancelled ? .retry(after: .zero) : await handler(held.event, attempt)
        if case .retry(let delay) = outcome {
            // The wait comes back as `due` (or, once the consumer ends, the event goes back to the stream).
            return .retrying(held, attempt: attempt + 1, delay: delay)
        }
        beats.stop(held.beat)
        holdings.remove(held.id)
        switch outcome {
        case .done: await Acknowledgement.send(held.message, "ack", logger: logger) { try await held.message.ack() }
        case .drop: await Acknowledgement.send(held.message, "terminate", logger: logger) { try await held.message.term() }
        case .stop, .retry: break  // handed back with the rest once the consumer stops
        }
        return .settled(held, outcome)
    }
}
