import Contracts
import Foundation
import Logging
import Messaging
import Metrics
import Runtime
import Synchronization

/// The relay: one ``EndpointRelay`` per endpoint of the webhooks file, kept in step with the file. An endpoint
/// added starts, one removed stops, one changed starts again with its new settings (its consumer keeps its
/// place); one that answered 410 stays stopped until its entry in the file changes. Every few seconds it also
/// reports each endpoint's backlog and the age of the oldest event it holds, and gives back the consumers of
/// endpoints no longer in the file that no replica reads.
struct WebhookRelay: Service {
    let file: FollowedFile<[WebhookEndpoint]>
    let settings: EndpointRelay.Settings
    let feeds: any EndpointFeeds
    let poster: any WebhookPoster
    let reloadInterval: Duration
    let metrics: MetricsRegistry
    let logger: Logger

    var name: String { "webhooks" }

    /// How often the consumers of endpoints no longer in the file are looked at, besides on every change of the file.
    static let releaseInterval = Duration.seconds(30)

    /// An endpoint being served.
    private struct Running {
        let relay: EndpointRelay
        let task: Task<OrderedEventConsumer.Ending, Never>
    }

    func run() async throws {
        Self.describe(metrics)
        var running: [String: Running] = [:]
        // The entries stopped by a 410: each stays stopped while the file holds it unchanged (the bucket tells every
        // replica the same, and a restart).
        var disabled: [String: WebhookEndpoint] = [:]
        var known: Set<String> = []
        var lastReport = ContinuousClock.now - .seconds(60)
        var lastRelease = ContinuousClock.now - .seconds(60)
        let gone = GoneEndpoints()
        defer {
            for served in running.values { served.task.cancel() }
        }
        do {
            while !Task.isCancelled {
                // Stopped by a 410 (the entry that ran, which the file may have changed since).
                for stopped in gone.take() where running[stopped.name]?.relay.endpoint == stopped {
                    running[stopped.name] = nil
                    disabled[stopped.name] = stopped
                }
                var fileRead = false
                switch file.reload() {
                case .unchanged:
                    break
                case .changed(let endpoints):
                    logger.info("webhooks file read again", ["endpoints": String(endpoints.count)])
                    fileRead = true
                case .failed(let error):
                    logger.error("webhooks file not usable: the endpoints read before stay in force until it is mended",
                                 ["error": String(describing: error)])
                }
                let endpoints = file.value
                disabled = disabled.filter { name, entry in endpoints.contains(entry) }
                // Consumers claimed by endpoints the file no longer lists go back (also those removed while no relay ran),
                // once no replica reads them: looked at on every change of the file and every half minute.
                if fileRead || ContinuousClock.now - lastRelease >= Self.releaseInterval {
                    lastRelease = ContinuousClock.now
                    await feeds.releaseAbsent(keeping: Set(endpoints.map(\.name)))
                }
                known.formUnion(endpoints.map(\.name))
                await reconcile(&running, with: endpoints, disabled: disabled, gone: gone)
                for name in known {
                    metrics.set("webhook_endpoint_disabled", ["endpoint": name], to: disabled[name] != nil ? 1 : 0)
                }
                if ContinuousClock.now - lastReport >= .seconds(5) {
                    lastReport = ContinuousClock.now
                    await report(endpoints, running: running)
                }
                try await Task.sleep(for: reloadInterval)
            }
        } catch is CancellationError {}
        for served in running.values {
            served.task.cancel()
            _ = await served.task.value
        }
    }

    /// Starts what the file lists and is not running (nor disabled), stops what it no longer lists, and starts again
    /// what it lists otherwise.
    private func reconcile(_ running: inout [String: Running], with endpoints: [WebhookEndpoint], disabled: [String: WebhookEndpoint],
                           gone: GoneEndpoints) async {
        let wanted = Dictionary(uniqueKeysWithValues: endpoints.map { ($0.name, $0) })
        for (name, served) in running where wanted[name] != served.relay.endpoint {
            served.task.cancel()
            _ = await served.task.value
            running[name] = nil
            logger.info("webhook endpoint stopped", ["webhook.endpoint": name])
            if wanted[name] == nil { await feeds.release(served.relay.endpoint) }
        }
        for endpoint in endpoints where running[endpoint.name] == nil && disabled[endpoint.name] != endpoint {
            let relay = EndpointRelay(endpoint: endpoint, settings: settings, feeds: feeds, poster: poster, metrics: metrics, logger: logger)
            running[endpoint.name] = Running(relay: relay, task: Task {
                let ending = await relay.run()
                if ending == .stopped { gone.add(endpoint) }
                return ending
            })
            logger.info("webhook endpoint started", ["webhook.endpoint": endpoint.name, "webhook.events": Self.describe(endpoint.events)])
        }
    }

    /// Sets each endpoint's backlog (the server's count for its consumer) and the age of the oldest event this
    /// replica holds for it.
    private func report(_ endpoints: [WebhookEndpoint], running: [String: Running]) async {
        for endpoint in endpoints {
            let labels = ["endpoint": endpoint.name]
            if let backlog = await feeds.backlog(of: endpoint) {
                metrics.set("webhook_pending_events", labels, to: Double(backlog))
            }
            let oldest = running[endpoint.name]?.relay.holdings.oldestStoredAt
            metrics.set("webhook_oldest_pending_seconds", labels, to: oldest.map { max(0, Date().timeIntervalSince($0)) } ?? 0)
        }
    }

    private static func describe(_ selection: WebhookEndpoint.Selection) -> String {
        switch selection {
        case .all: "*"
        case .only(let types): types.sorted().joined(separator: ",")
        }
    }

    private static func describe(_ metrics: MetricsRegistry) {
        metrics.describeCounter("webhook_deliveries_total", "Events delivered (answered 2xx), by endpoint.")
        metrics.describeCounter("webhook_attempts_failed_total",
                                "Delivery attempts that failed, by endpoint and reason (status, redirect, timeout, connection, refused-destination, gone, transport).")
        metrics.describeCounter("webhook_events_dropped_total", "Events given up, by endpoint and reason (expired, unreadable).")
        metrics.describeGauge("webhook_endpoint_disabled", "1 while an endpoint is disabled by a 410 answer (until the webhooks file changes).")
        metrics.describeGauge("webhook_pending_events", "Events of an endpoint's consumer not yet delivered (the server's backlog).")
        metrics.describeGauge("webhook_oldest_pending_seconds", "Age of the oldest event this replica holds for an endpoint.")
        metrics.describeHistogram("webhook_delivery_seconds", "Delivery attempts that got an answer, by endpoint: seconds to the answer.")
    }
}

/// The endpoints whose deliveries stopped on a 410 (each with the entry it ran), told by their tasks to the relay's loop.
private final class GoneEndpoints: Sendable {
    private let entries = Mutex<[WebhookEndpoint]>([])

    func add(_ endpoint: WebhookEndpoint) {
        entries.withLock { $0.append(endpoint) }
    }

    /// The entries told since the last call.
    func take() -> [WebhookEndpoint] {
        entries.withLock { entries in
            defer { entries.removeAll() }
            return entries
        }
    }
}
