import Foundation
import Logging
import Messaging
import Metrics
import Runtime

/// One endpoint's deliveries: its feed of events (``EndpointFeeds``), each event it asked for posted (``WebhookPoster``), signed,
/// in order per member and concurrently across members, retried until a 2xx (or until the stream would drop
/// it); a 410 stops it (``run()`` returns ``OrderedEventConsumer/Ending/stopped``).
struct EndpointRelay: Sendable {
    /// How deliveries are made, the same for every endpoint.
    struct Settings: Sendable {
        /// One attempt's deadline (`WEBHOOK_TIMEOUT`).
        var timeout: Duration
        /// How long the stream keeps an event (`EVENTS_MAX_AGE`): retries end there.
        var maxAge: Duration
        /// The waits between attempts on one event.
        var backoff: Backoff
    }

    let endpoint: WebhookEndpoint
    let settings: Settings
    let feeds: any EndpointFeeds
    let poster: any WebhookPoster
    let holdings: OrderedEventConsumer.Holdings
    let metrics: MetricsRegistry
    let logger: Logger

    init(endpoint: WebhookEndpoint, settings: Settings, feeds: any EndpointFeeds, poster: any WebhookPoster, metrics: MetricsRegistry,
         logger: Logger) {
        self.endpoint = endpoint
        self.settings = settings
        self.feeds = feeds
        self.poster = poster
        self.holdings = OrderedEventConsumer.Holdings()
        self.metrics = metrics
        self.logger = logger.with(["webhook.endpoint": endpoint.name])
    }

    private var labels: [String: String] { ["endpoint": endpoint.name] }

    /// Delivers until the endpoint answers 410 (``OrderedEventConsumer/Ending/stopped``) or the task is cancelled.
    func run() async -> OrderedEventConsumer.Ending {
        await feeds.run(endpoint, holdings: holdings) { event, attempt in await deliver(event, attempt: attempt) }
    }

    /// One attempt at one event.
    func deliver(_ event: OrderedEventConsumer.Event, attempt: Int) async -> OrderedEventConsumer.Outcome {
        guard let prepared = WebhookDelivery.prepare(payload: event.payload) else {
            logger.error("unreadable event not delivered", ["nats.subject": event.subject])
            metrics.increment("webhook_events_dropped_total", labels.merging(["reason": "unreadable"]) { $1 })
            return .drop
        }
        guard !WebhookDelivery.isExpired(storedAt: event.storedAt, maxAge: settings.maxAge) else {
            logger.error("event given up: the endpoint did not take it while the stream kept it",
                         ["event.id": prepared.id, "event.type": prepared.type, "attempts": String(attempt)])
            metrics.increment("webhook_events_dropped_total", labels.merging(["reason": "expired"]) { $1 })
            return .drop
        }
        let timestamp = Int64(Date().timeIntervalSince1970)
        let headers = WebhookDelivery.headers(prepared, timestamp: timestamp, secret: endpoint.secret)
        let started = ContinuousClock.now
        let reason: String
        let detail: String
        do throws(WebhookPostFailure) {
            let status = try await poster.post(url: endpoint.url, headers: headers, body: prepared.body, timeout: settings.timeout)
            metrics.observe("webhook_delivery_seconds", labels, (ContinuousClock.now - started).timeInterval)
            switch WebhookDelivery.verdict(status: status) {
            case .delivered:
                metrics.increment("webhook_deliveries_total", labels)
                return .done
            case .gone:
                logger.error("the endpoint answered 410 Gone: nothing more is sent to it until WEBHOOKS_FILE changes",
                             ["event.id": prepared.id])
                metrics.increment("webhook_attempts_failed_total", labels.merging(["reason": "gone"]) { $1 })
                return .stop
            case .failed:
                reason = (300...399).contains(status) ? "redirect" : "status"
                detail = (300...399).contains(status) ? "answered \(status), a redirect: redirects are not followed" : "answered \(status)"
            }
        } catch {
            if error.isCancelled || Task.isCancelled { return .retry(after: .zero) }
            reason = error.reason
            detail = error.detail
        }
        metrics.increment("webhook_attempts_failed_total", labels.merging(["reason": reason]) { $1 })
        let delay = settings.backoff.delay(afterFailures: attempt)
        // Told on the first failures and then ever more rarely (attempts 1, 2, 4, 8...): an endpoint down for a day logs little.
        if attempt & (attempt - 1) == 0 {
            logger.warning("delivery failed; trying again", ["event.id": prepared.id, "event.type": prepared.type, "attempt": String(attempt),
                                                             "failure": detail, "retry.seconds": String(delay.components.seconds)])
        }
        return .retry(after: delay)
    }
}
