import Messaging

/// Where the relay posts (the HTTP client, in `Adapters`): one attempt, answered with a status or a failure.
protocol WebhookPoster: Sendable {
    /// Posts `body` with `headers` to `url` within `timeout`; the status of the answer, whatever it is.
    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async throws(WebhookPostFailure) -> Int
}

/// Why an attempt got no answer: its metrics label and what the log tells.
struct WebhookPostFailure: Error, Sendable {
    /// The `reason` label: `timeout`, `connection`, `refused-destination`, `transport`, or `cancelled`.
    let reason: String
    /// What went wrong, for the log (never the URL nor the body).
    let detail: String

    /// The caller's task was cancelled: not a failure of the endpoint.
    var isCancelled: Bool { reason == "cancelled" }
}

/// Where each endpoint's events come from (its durable consumer, in `Ports`).
protocol EndpointFeeds: Sendable {
    /// Hands the events of `endpoint`'s consumer to `handler`, in order per member, until `handler` says stop (returns
    /// ``OrderedEventConsumer/Ending/stopped``) or the task is cancelled; `holdings` tells what is held meanwhile.
    func run(_ endpoint: WebhookEndpoint, holdings: OrderedEventConsumer.Holdings,
             handler: @escaping OrderedEventConsumer.Handler) async -> OrderedEventConsumer.Ending

    /// The server's backlog of `endpoint`'s consumer (undelivered and unacknowledged); nil when unknown.
    func backlog(of endpoint: WebhookEndpoint) async -> UInt64?

    /// Gives up `endpoint`'s consumer: it left the webhooks file (it takes it back, and its place, if it returns
    /// before another endpoint needs it).
    func release(_ endpoint: WebhookEndpoint) async

    /// Releases the consumers claimed by endpoints not among `names` (removed from the file while no relay ran).
    func releaseAbsent(keeping names: Set<String>) async
}
