import Contracts
import Logging
import Messaging
import NATS

/// ``EndpointFeeds`` from the event stream: each endpoint's own durable consumer (`webhook-<name>`) of every event,
/// those it did not ask for acknowledged unsent.
struct StreamFeeds: EndpointFeeds {
    let connection: NATSConnection
    /// How long an event is kept (`EVENTS_MAX_AGE`): it is held at most as long, and a consumer nobody reads from
    /// is dropped by the server after as long.
    let maxAge: Duration
    /// Deliveries at once per endpoint.
    let concurrency: Int
    let logger: Logger

    func run(_ endpoint: WebhookEndpoint, holdings: OrderedEventConsumer.Holdings,
             handler: @escaping OrderedEventConsumer.Handler) async -> OrderedEventConsumer.Ending {
        var settings = OrderedEventConsumer.Settings(durable: endpoint.durable)
        settings.maxConcurrent = concurrency
        settings.maxHandlingTime = maxAge
        settings.inactiveThreshold = maxAge
        return await OrderedEventConsumer(connection: connection, settings: settings, holdings: holdings,
                                          logger: logger.with(["webhook.endpoint": endpoint.name]),
                                          wants: { endpoint.wantsSubject($0) },
                                          key: { _, payload in WebhookDelivery.memberKey(payload: payload) },
                                          handler: handler).run()
    }

    func backlog(of endpoint: WebhookEndpoint) async -> UInt64? {
        guard let backlog = try? await connection.jetStream.backlog(stream: Events.stream, durable: endpoint.durable) else { return nil }
        return backlog.undelivered + backlog.unacknowledged
    }
}
