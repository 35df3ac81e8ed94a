import Collections
import Contracts
import Foundation
import Logging
import Messaging
import NATS
import Synchronization

/// ``EndpointFeeds`` from the event stream: each endpoint reads every event through the relay consumer it claimed
/// (``WebhookSlot``), those it did not ask for, or stored before it claimed the slot, acknowledged unsent.
final class StreamFeeds: EndpointFeeds {
    let connection: NATSConnection
    /// How long an event is kept (`EVENTS_MAX_AGE`): it is held at most as long.
    let maxAge: Duration
    /// Deliveries at once per endpoint.
    let concurrency: Int
    let logger: Logger
    /// The slot each endpoint of this replica claimed.
    private let claims = Mutex<[String: String]>([:])
    /// Claims and releases, one at a time: two endpoints of this replica never pick the same free slot.
    private let claiming = SerialQueue()

    /// The slots' settings: every event, each acknowledged, a 30 s ack wait.
    static let filter = "events.>"
    static let ackWait = Duration.seconds(30)

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
        var claimed: (slot: String, claim: WebhookSlot)?
        while claimed == nil, !Task.isCancelled {
            do {
                claimed = try await claiming.run { try await self.claim(endpoint.name) }
            } catch {
                if !warned { logger.error("no consumer for the endpoint yet; trying again", ["error": String(describing: error)]) }
                warned = true
                try? await Task.sleep(for: .seconds(2))
            }
        }
        guard let claimed, case .claimed(_, let since) = claimed.claim else { return .cancelled }
        claims.withLock { $0[endpoint.name] = claimed.slot }
        logger.info("webhook endpoint reads its consumer", ["nats.durable": claimed.slot, "webhook.since": String(since)])
        var settings = OrderedEventConsumer.Settings(durable: claimed.slot)
        settings.filterSubject = Self.filter
        settings.ackWait = Self.ackWait
        settings.description = claimed.claim.description
        settings.maxConcurrent = concurrency
        settings.maxHandlingTime = maxAge
        let start = Date(timeIntervalSince1970: TimeInterval(since))
        return await OrderedEventConsumer(connection: connection, settings: settings, holdings: holdings, logger: logger,
                                          wants: { subject, storedAt in storedAt >= start && endpoint.wantsSubject(subject) },
                                          key: { _, payload in WebhookDelivery.memberKey(payload: payload) },
                                          handler: handler).run()
    }

    func backlog(of endpoint: WebhookEndpoint) async -> UInt64? {
        guard let slot = claims.withLock({ $0[endpoint.name] }),
              let state = try? await connection.jetStream.consumerState(stream: Events.stream, durable: slot) else { return nil }
        return state.undelivered + state.unacknowledged
    }

    func release(_ endpoint: WebhookEndpoint) async {
        do {
            try await claiming.run {
                for (slot, state) in try await self.slots() {
                    guard case .claimed(endpoint.name, let since) = state else { continue }
                    let released = WebhookSlot.released(endpoint: endpoint.name, since: since, at: Int64(Date().timeIntervalSince1970))
                    try await self.write(released, to: slot)
                }
            }
            claims.withLock { $0[endpoint.name] = nil }
        } catch {
            logger.warning("the removed endpoint's consumer was not released", ["webhook.endpoint": endpoint.name,
                                                                                  "error": String(describing: error)])
        }
    }

    /// Claims a slot for the endpoint `name` (or finds its claim), checking after writing that no other replica wrote
    /// another claim there meanwhile.
    private func claim(_ name: String) async throws -> (slot: String, claim: WebhookSlot) {
        for _ in 1...5 {
            let slots = try await slots()
            guard let choice = WebhookSlot.choose(for: name, among: slots, now: Int64(Date().timeIntervalSince1970)) else {
                throw WebhookSlotsFull()
            }
            guard choice.write else { return (choice.slot, choice.claim) }
            try await write(choice.claim, to: choice.slot)
            let state = try await connection.jetStream.consumerState(stream: Events.stream, durable: choice.slot)
            if let state, WebhookSlot(description: state.description) == choice.claim { return (choice.slot, choice.claim) }
        }
        throw WebhookSlotsFull()
    }

    /// What each slot holds, in order; a slot missing on the server is made (free) first, so that no one else can make
    /// it deliver elsewhere.
    private func slots() async throws -> [(name: String, slot: WebhookSlot)] {
        var slots: [(name: String, slot: WebhookSlot)] = []
        for slot in Events.Durables.webhookSlots {
            if let state = try await connection.jetStream.consumerState(stream: Events.stream, durable: slot) {
                slots.append((slot, WebhookSlot(description: state.description)))
            } else {
                try await write(.free, to: slot)
                slots.append((slot, .free))
            }
        }
        return slots
    }

    private func write(_ claim: WebhookSlot, to slot: String) async throws {
        try await connection.jetStream.ensureConsumer(stream: Events.stream, durable: slot, filterSubject: Self.filter, ackWait: Self.ackWait,
                                                      startsAtNew: true, description: claim.description.isEmpty ? nil : claim.description)
    }
}

/// Every one of the relay's consumers is claimed by another endpoint (or claims kept changing under it).
struct WebhookSlotsFull: Error, CustomStringConvertible {
    var description: String { "every one of the relay's \(WebhookSlot.capacity) consumers is claimed by another endpoint" }
}
