import Management
import Runtime
import Messaging
import NATS

/// The webhook-relay's settings (docs/configuration.md, "webhook-relay").
public struct WebhookRelayConfiguration: Sendable {
    /// The endpoints file (`WEBHOOKS_FILE`, a JSON array; a secret). Required: an empty array relays nothing.
    public var webhooksFile: String = ""
    /// How often the file is looked at for a change. Default 2 s.
    public var reloadInterval: Duration = .seconds(2)
    /// One delivery attempt's deadline (`WEBHOOK_TIMEOUT`, seconds). Default 10 s.
    public var timeout: Duration = .seconds(10)
    /// Deliveries at once per endpoint, each for another member (`WEBHOOK_CONCURRENCY`). Default 8.
    public var concurrency: Int = 8
    /// Whether `http` URLs are taken (`WEBHOOK_ALLOW_HTTP`). Default false: `https` only.
    public var allowHTTP = false
    /// Whether loopback, private and link-local addresses may be sent to (`WEBHOOK_ALLOW_PRIVATE_ADDRESSES`):
    /// for development and tests. Default false.
    public var allowPrivateAddresses = false
    /// The waits between attempts on one event (not read from the environment; tests shorten them).
    public var retryBackoff = WebhookDelivery.backoff
    /// NATS server URL(s). Default `nats://127.0.0.1:4222`.
    public var natsURL: String = "nats://127.0.0.1:4222"
    /// How it signs in to NATS: its nkey, TLS (`NATS_NKEY_SEED_FILE`, `NATS_TLS_*`) and its own inbox prefix.
    public var natsAccess = NATSConnection.Access(inboxPrefix: BusIdentity.webhookRelay.inboxPrefix)
    /// The event stream's settings (`EVENTS_MAX_AGE`: an event is retried as long as the stream keeps it).
    public var events = EventStreamSettings()
    /// The management port (`MANAGEMENT_PORT`, off unless set; `MANAGEMENT_HOST`).
    public var management = ManagementConfiguration()

    /// The defaults.
    public init() {}
}
