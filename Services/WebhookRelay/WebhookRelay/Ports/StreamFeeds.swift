import Contracts
import Foundation
import Logging
import Messaging
import NATS
import Synchronization

/// ``EndpointFeeds`` from the event stream. Each endpoint reads every event through the consumer it claimed
/// (``WebhookSlot``), those it did not ask for, or stored before it claimed the consumer, acknowledged unsent. The
/// claims, and a lease that lets one replica at a time read each consumer (so a member's events go out in order, and
/// none twice), live in the relay's key-value bucket and change only by compare-and-set, so replicas that act at once
/// never both win.
final class StreamFeeds: EndpointFeeds {
    let connection: NATSConnection
    /// How long an event is kept (`EVENTS_MAX_AGE`): it is held at most as long.
    let maxAge: Duration
    /// Deliveries at once per endpoint.
    let concurrency: Int
    let logger: Logger
    /// This replica, as its leases name it.
    let replica = UUID().uuidString.lowercased()
    /// The consumer each endpoint of this replica claimed.
    private let claims = Mutex<[String: String]>([:])
    /// The leases of other replicas this one saw: each slot's lease revision, and when this replica first saw it.
    private let sightings = Mutex<[String: (revision: UInt64, seen: ContinuousClock.Instant)]>([:])
    /// The claims of endpoints no longer in the file this replica saw: each slot's claim and lease revisions, and when
    /// this replica first saw them so.
    private let releaseSightings = Mutex<[String: (claim: UInt64, lease: UInt64?, seen: ContinuousClock.Instant)]>([:])

    /// How long a lease lasts unless renewed, and how often its holder renews it.
    static let leaseTime: Int64 = 15
    static let renewal = Duration.seconds(5)
    /// How long after its last renewal began a holder goes on reading: it stops well before another replica, which
    /// counts a whole lease time from when it saw that renewal, may take over.
    static let holdTime = Duration.seconds(10)

    init(connection: NATSConnection, maxAge: Duration, concurrency: Int, logger: Logger) {
        self.connection = connection
        self.maxAge = maxAge
        self.concurrency = concurrency
        self.logger = logger
    }

    func run(_ endpoint: WebhookEndpoint, holdings: OrderedEventConsumer.Holdings,
             handler: @escaping OrderedEventConsumer.Handler) async -> OrderedEventConsumer.Ending {
        let logger = logger.with(["webhook.endpoint": endpoint.name])
        var warned = false
        while !Task.isCancelled {
            do {
                let bucket = try await connection.jetStream.keyValue(Events.webhookBucket)
                let (slot, since) = try await claim(endpoint, in: bucket)
                guard let since else { return .stopped }  // disabled by a 410 for this very entry
                claims.withLock { $0[endpoint.name] = slot }
                try await checkConsumer(slot)
                warned = false
                let asked = ContinuousClock.now
                guard let taking = try await acquireLease(slot, in: bucket) else {
                    // Another replica reads this endpoint's consumer; this one takes over when its lease lapses.
                    try await Task.sleep(for: Self.renewal)
                    continue
                }
                logger.info("webhook endpoint reads its consumer", ["nats.durable": slot, "webhook.since": String(since)])
                let ending = await consume(endpoint, slot: slot, since: since, bucket: bucket, leased: asked, afterLapse: taking == .lapsed,
                                           holdings: holdings, logger: logger, handler: handler)
                switch ending {
                case .stopped:
                    // Marked before the lease is given up, so that no replica takes it over and posts again meanwhile.
                    try await disable(endpoint, slot: slot, in: bucket)
                    try? await releaseLease(slot, in: bucket)
                    return .stopped
                case .cancelled:
                    try? await releaseLease(slot, in: bucket)
                    if Task.isCancelled { return .cancelled }
                }
            } catch {
                if Task.isCancelled { break }
                if !warned { logger.error("the endpoint's consumer cannot be read yet; trying again", ["error": String(describing: error)]) }
                warned = true
                try? await Task.sleep(for: .seconds(2))
            }
        }
        return .cancelled
    }

    /// Reads `slot` while this replica holds its lease (taken when `leased` began): renews the lease every few seconds,
    /// and stops reading as soon as a renewal says it is lost (another replica took it over, or the claim is no longer
    /// the endpoint's), or when no renewal went through for ``holdTime``, whatever the bucket is waiting for. After
    /// taking over a lease that lapsed (`afterLapse`), it first waits out the ack wait: the events the silent holder
    /// held come back then, and the server hands them out before newer ones, so a member's events stay in order.
    private func consume(_ endpoint: WebhookEndpoint, slot: String, since: Int64, bucket: KeyValueBucket, leased: ContinuousClock.Instant,
                         afterLapse: Bool, holdings: OrderedEventConsumer.Holdings, logger: Logger,
                         handler: @escaping OrderedEventConsumer.Handler) async -> OrderedEventConsumer.Ending {
        var settings = OrderedEventConsumer.Settings(durable: slot)
        settings.filterSubject = Events.WebhookSlotSettings.filterSubject
        settings.ackWait = Events.WebhookSlotSettings.ackWait
        settings.createsConsumer = false
        settings.maxConcurrent = concurrency
        settings.maxHandlingTime = maxAge
        let start = Date(timeIntervalSince1970: TimeInterval(since))
        let ackWait = settings.ackWait
        let renewed = LastRenewal(leased)
        // No attempt starts once the lease may have lapsed (the watchdog stops the consumer within a second).
        let fenced: OrderedEventConsumer.Handler = { event, attempt in
            guard ContinuousClock.now - renewed.instant < Self.holdTime else { return .retry(after: .seconds(1)) }
            return await handler(event, attempt)
        }
        let consumer = OrderedEventConsumer(connection: connection, settings: settings, holdings: holdings, logger: logger,
                                            wants: { subject, storedAt in storedAt >= start && endpoint.wantsSubject(subject) },
                                            key: { _, payload in WebhookDelivery.memberKey(payload: payload) }, handler: fenced)
        return await withTaskGroup(of: OrderedEventConsumer.Ending?.self) { group in
            group.addTask {
                if afterLapse {
                    logger.info("the last reader of the endpoint's consumer went silent: waiting out the ack wait before reading",
                                ["nats.durable": slot])
                    do { try await Task.sleep(for: ackWait + .seconds(1)) } catch { return .cancelled }
                }
                return await consumer.run()
            }
            group.addTask { [self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.renewal)
                    if Task.isCancelled { break }
                    let began = ContinuousClock.now
                    // No answer (the bucket or the connection is away): tried again; the watchdog below stops reading in time.
                    guard let kept = try? await renewLease(slot, endpoint: endpoint.name, in: bucket) else { continue }
                    guard kept else {
                        logger.warning("the lease on the endpoint's consumer was lost; another replica reads it", ["nats.durable": slot])
                        return nil
                    }
                    renewed.set(began)
                }
                return nil
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    if ContinuousClock.now - renewed.instant >= Self.holdTime {
                        logger.warning("the lease on the endpoint's consumer went unrenewed for \(Self.holdTime): it stops reading, so that another replica may take over",
                                       ["nats.durable": slot])
                        return nil
                    }
                }
                return nil
            }
            let first = await group.next()
            group.cancelAll()
            // The consumer ended first (a 410, or cancellation), or the lease was lost: then the consumer's own ending.
            if case .some(.some(let ending)) = first { return ending }
            while let next = await group.next() {
                if let ending = next { return ending }
            }
            return .cancelled
        }
    }

    /// Throws unless `slot`'s consumer exists as the member-service makes it (``WebhookSlotProvisioning``).
    private func checkConsumer(_ slot: String) async throws {
        guard let state = try await connection.jetStream.consumerState(stream: Events.stream, durable: slot) else {
            throw SlotConsumerUnusable(slot: slot, flaws: ["it does not exist yet: the member-service makes it when it starts"])
        }
        let flaws = WebhookSlotProvisioning.flaws(of: state.configuration)
        guard flaws.isEmpty else { throw SlotConsumerUnusable(slot: slot, flaws: flaws) }
    }

    func backlog(of endpoint: WebhookEndpoint) async -> UInt64? {
        guard let slot = claims.withLock({ $0[endpoint.name] }),
              let state = try? await connection.jetStream.consumerState(stream: Events.stream, durable: slot) else { return nil }
        return state.undelivered + state.unacknowledged
    }

    func release(_ endpoint: WebhookEndpoint) async {
        do {
            let bucket = try await connection.jetStream.keyValue(Events.webhookBucket)
            try await releaseClaims(in: bucket, now: true) { $0 == endpoint.name }
            claims.withLock { $0[endpoint.name] = nil }
        } catch {
            logger.warning("the removed endpoint's consumer was not released", ["webhook.endpoint": endpoint.name,
                                                                                  "error": String(describing: error)])
        }
    }

    func releaseAbsent(keeping names: Set<String>) async {
        do {
            let bucket = try await connection.jetStream.keyValue(Events.webhookBucket)
            try await releaseClaims(in: bucket, now: false) { !names.contains($0) }
        } catch {
            logger.warning("the consumers of endpoints no longer in the file were not released", ["error": String(describing: error)])
        }
    }

    // MARK: Claims

    /// What each slot holds, in order, with the revision it was read at (nil: no value).
    private func slots(in bucket: KeyValueBucket) async throws -> [(name: String, slot: WebhookSlot, revision: UInt64?)] {
        var slots: [(name: String, slot: WebhookSlot, revision: UInt64?)] = []
        for slot in Events.Durables.webhookSlots {
            let entry = try await bucket.get(WebhookSlot.claimKey(slot))
            slots.append((slot, entry.map { WebhookSlot(description: String(decoding: $0.value, as: UTF8.self)) } ?? .free, entry?.revision))
        }
        return slots
    }

    /// Writes `claim` to `slot` if it is still at `revision` (nil: has no value); false when someone wrote it since.
    private func write(_ claim: WebhookSlot, to slot: String, at revision: UInt64?, in bucket: KeyValueBucket) async throws -> Bool {
        let value = Array(claim.description.utf8)
        if let revision { return try await bucket.update(WebhookSlot.claimKey(slot), value, revision: revision) != nil }
        return try await bucket.create(WebhookSlot.claimKey(slot), value) != nil
    }

    /// The consumer `endpoint` claims (finding its claim, or claiming one), and the time its events count from; nil
    /// for that time while a 410 disables this very entry of the file. A disable left by another entry is cleared.
    private func claim(_ endpoint: WebhookEndpoint, in bucket: KeyValueBucket) async throws -> (slot: String, since: Int64?) {
        for _ in 1...10 {
            let slots = try await slots(in: bucket)
            let now = Int64(Date().timeIntervalSince1970)
            guard let choice = WebhookSlot.choose(for: endpoint.name, among: slots.map { ($0.name, $0.slot) }, now: now) else {
                throw WebhookSlotsFull()
            }
            let revision = slots.first { $0.name == choice.slot }?.revision
            guard case .claimed(_, let since, let disabled) = choice.claim else { throw WebhookSlotsFull() }
            // A 410 for this very entry: it stays disabled (a released claim taken back keeps the mark).
            if disabled == endpoint.fingerprint {
                if choice.write { guard try await write(choice.claim, to: choice.slot, at: revision, in: bucket) else { continue } }
                return (choice.slot, nil)
            }
            // A 410 for another entry is cleared: the file changed since.
            if choice.write || disabled != nil {
                guard try await write(.claimed(endpoint: endpoint.name, since: since), to: choice.slot, at: revision, in: bucket) else { continue }
            }
            return (choice.slot, since)
        }
        throw WebhookSlotsFull()
    }

    /// Marks `endpoint`'s claim disabled for its present entry (a 410), for every replica and after restarts.
    private func disable(_ endpoint: WebhookEndpoint, slot: String, in bucket: KeyValueBucket) async throws {
        for _ in 1...10 {
            guard let entry = try await bucket.get(WebhookSlot.claimKey(slot)),
                  case .claimed(endpoint.name, let since, _) = WebhookSlot(description: String(decoding: entry.value, as: UTF8.self))
            else { return }
            let disabled = WebhookSlot.claimed(endpoint: endpoint.name, since: since, disabled: endpoint.fingerprint)
            if try await write(disabled, to: slot, at: entry.revision, in: bucket) { return }
        }
    }

    /// Releases every claim whose endpoint `matches` and that no replica reads: at once (`now`) when its lease was
    /// given up or never taken (the endpoint this replica just stopped); otherwise once this replica saw the claim and
    /// its lease both unchanged for a lease time (a holder renews every 5 s), on its own clock: a replica still on an
    /// older file, or another deployment's, keeps what it reads, and an endpoint that just claimed a slot keeps it.
    private func releaseClaims(in bucket: KeyValueBucket, now: Bool, where matches: (String) -> Bool) async throws {
        for (slot, state, revision) in try await slots(in: bucket) {
            guard case .claimed(let name, let since, let disabled) = state, matches(name), let revision else { continue }
            let lease = try await bucket.get(WebhookSlot.leaseKey(slot))
            if now {
                if let lease, let held = Self.parseLease(lease), held.until != 0 { continue }
            } else {
                let seen = ContinuousClock.now
                let first = releaseSightings.withLock { sightings in
                    if let sighting = sightings[slot], sighting.claim == revision, sighting.lease == lease?.revision { return sighting.seen }
                    sightings[slot] = (revision, lease?.revision, seen)
                    return seen
                }
                guard seen - first >= .seconds(Self.leaseTime) else { continue }
            }
            let released = WebhookSlot.released(endpoint: name, since: since, at: Int64(Date().timeIntervalSince1970), disabled: disabled)
            if try await write(released, to: slot, at: revision, in: bucket) {
                logger.info("webhook endpoint's consumer released", ["webhook.endpoint": name, "nats.durable": slot])
            }
        }
    }

    // MARK: Leases

    /// A lease's value: `<replica> <until>` (Unix seconds; 0 once given up).
    private func lease(until: Int64) -> [UInt8] { Array("\(replica) \(until)".utf8) }

    private static func parseLease(_ entry: KeyValueBucket.Entry) -> (holder: String, until: Int64)? {
        let words = String(decoding: entry.value, as: UTF8.self).split(separator: " ")
        guard words.count == 2, let until = Int64(words[1]) else { return nil }
        return (String(words[0]), until)
    }

    /// How a lease was taken: free (never held, given up, or this replica's), or lapsed (another replica's, unrenewed).
    private enum LeaseTaking { case free, lapsed }

    /// Takes the lease on `slot` when it is free, given up, already this replica's, or lapsed: another replica's lease
    /// lapsed once this replica saw the same revision of it for a whole lease time, on its own clock (no two machines'
    /// clocks compared). Nil while another replica holds it.
    private func acquireLease(_ slot: String, in bucket: KeyValueBucket) async throws -> LeaseTaking? {
        let value = lease(until: Int64(Date().timeIntervalSince1970) + Self.leaseTime)
        guard let entry = try await bucket.get(WebhookSlot.leaseKey(slot)) else {
            return try await bucket.create(WebhookSlot.leaseKey(slot), value) != nil ? .free : nil
        }
        var taking = LeaseTaking.free
        if let held = Self.parseLease(entry), held.holder != replica, held.until != 0 {
            let now = ContinuousClock.now
            let seen = sightings.withLock { sightings in
                if let sighting = sightings[slot], sighting.revision == entry.revision { return sighting.seen }
                sightings[slot] = (entry.revision, now)
                return now
            }
            guard now - seen >= .seconds(Self.leaseTime) else { return nil }
            taking = .lapsed
        }
        return try await bucket.update(WebhookSlot.leaseKey(slot), value, revision: entry.revision) != nil ? taking : nil
    }

    /// Extends this replica's lease on `slot`, if it still holds it and the slot is still `endpoint`'s, not disabled by a
    /// 410 (another replica's, just before this one took the lease).
    private func renewLease(_ slot: String, endpoint: String, in bucket: KeyValueBucket) async throws -> Bool {
        guard let claim = try await bucket.get(WebhookSlot.claimKey(slot)),
              case .claimed(endpoint, _, nil) = WebhookSlot(description: String(decoding: claim.value, as: UTF8.self)),
              let entry = try await bucket.get(WebhookSlot.leaseKey(slot)), Self.parseLease(entry)?.holder == replica else { return false }
        let value = lease(until: Int64(Date().timeIntervalSince1970) + Self.leaseTime)
        return try await bucket.update(WebhookSlot.leaseKey(slot), value, revision: entry.revision) != nil
    }

    /// Gives up this replica's lease on `slot` at once, so another replica takes over without waiting for it to lapse.
    private func releaseLease(_ slot: String, in bucket: KeyValueBucket) async throws {
        guard let entry = try await bucket.get(WebhookSlot.leaseKey(slot)), Self.parseLease(entry)?.holder == replica else { return }
        _ = try await bucket.update(WebhookSlot.leaseKey(slot), lease(until: 0), revision: entry.revision)
    }
}

/// When a lease was last renewed (when that renewal began), shared by the renewals and the watchdog.
private final class LastRenewal: Sendable {
    private let value: Mutex<ContinuousClock.Instant>

    init(_ instant: ContinuousClock.Instant) {
        value = Mutex(instant)
    }

    var instant: ContinuousClock.Instant { value.withLock { $0 } }

    func set(_ instant: ContinuousClock.Instant) {
        value.withLock { $0 = instant }
    }
}

/// A slot's consumer the relay does not read: missing, or not as the member-service makes it.
struct SlotConsumerUnusable: Error, CustomStringConvertible {
    let slot: String
    let flaws: [String]
    var description: String { "the consumer '\(slot)' is not read: \(flaws.joined(separator: "; "))" }
}

/// Every one of the relay's consumers is claimed by another endpoint (or claims kept changing under it).
struct WebhookSlotsFull: Error, CustomStringConvertible {
    var description: String { "every one of the relay's \(WebhookSlot.capacity) consumers is claimed by another endpoint" }
}
