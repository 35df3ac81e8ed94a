import Contracts
import Crypto
import DevIDP
import Foundation
import JSON
import Logging
import NATS
import Runtime
import Synchronization
import WebhookRelay
import Webhooks

/// One endpoint of a ``TestWebhookRelay``: a name of its own (so its durable consumer is new), its secret, the
/// event types it asks for, and where it posts (by default the stack's dev-idp inbox of the same name).
public struct TestWebhookEndpoint: Sendable {
    public let name: String
    public let secret: WebhookSecret
    public var events: [String]
    public var url: String

    /// An endpoint asking for `events`, posting to `url` or the dev-idp inbox named after it.
    public init(stack: RunningStack, events: [String], url: String? = nil) {
        name = "t" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        secret = WebhookSecret(key: SecureRandom.bytes(32))
        self.events = events
        self.url = url ?? stack.devIDPURL + "/webhooks/" + name
    }

    /// Its entry in a webhooks file.
    var entry: JSONValue {
        .object(["name": .string(name), "url": .string(url), "secret": .string(secret.text), "events": .array(events.map { .string($0) })])
    }
}

/// A webhook-relay in the test process, on a stack's NATS, with a webhooks file of its own; its log is kept.
public final class TestWebhookRelay: Sendable {
    /// The webhooks file.
    public let path: String
    /// What the relay logged (warnings and above).
    public let log: LogSink
    private let task: Task<Void, Never>
    private let stack: RunningStack
    private let endpoints: Mutex<[TestWebhookEndpoint]>

    private init(path: String, log: LogSink, task: Task<Void, Never>, stack: RunningStack, endpoints: [TestWebhookEndpoint]) {
        self.path = path
        self.log = log
        self.task = task
        self.stack = stack
        self.endpoints = Mutex(endpoints)
    }

    /// Starts a relay for `endpoints` and waits until each one's durable consumer exists (events published from
    /// then on reach it). `allowPrivate` lets it post to the dev-idp on 127.0.0.1; `backoff` sets its retries.
    public static func start(_ stack: RunningStack, endpoints: [TestWebhookEndpoint], allowPrivate: Bool = true,
                             backoff: Backoff = Backoff(first: .milliseconds(200), cap: .seconds(2), jitter: 0.5...1.0),
                             waitForConsumers: Bool = true) async throws -> TestWebhookRelay {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("webhooks.json").path
        try write(endpoints, to: path)
        var configuration = WebhookRelayConfiguration()
        configuration.webhooksFile = path
        configuration.reloadInterval = .milliseconds(200)
        configuration.allowHTTP = true
        configuration.allowPrivateAddresses = allowPrivate
        configuration.timeout = .seconds(5)
        configuration.retryBackoff = backoff
        configuration.natsURL = stack.natsURL
        configuration.natsAccess = TestIdentities.access(for: .webhookRelay)
        let log = LogSink.capturing()
        let logger = Logger(label: "webhook-relay", level: .warning, format: .text, sink: log)
        let server = WebhookRelayServer(configuration: configuration, logger: logger)
        let task = Task {
            do { try await server.run() } catch { logger.critical("test relay stopped", ["error": String(describing: error)]) }
        }
        let relay = TestWebhookRelay(path: path, log: log, task: task, stack: stack, endpoints: endpoints)
        if waitForConsumers {
            for endpoint in endpoints { try await relay.waitForConsumer(endpoint, on: stack) }
        }
        return relay
    }


    /// Writes `endpoints` as the webhooks file (the relay reads it again within 200 ms).
    public func rewrite(_ endpoints: [TestWebhookEndpoint]) throws {
        try Self.write(endpoints, to: path)
        self.endpoints.withLock { known in known += endpoints.filter { new in !known.contains { $0.name == new.name } } }
    }

    /// Waits until `endpoint` claimed one of the relay's consumers on the stack's stream.
    public func waitForConsumer(_ endpoint: TestWebhookEndpoint, on stack: RunningStack) async throws {
        try await waitUntil(timeout: .seconds(60), "the relay claimed no consumer for \(endpoint.name): \(log.lines.joined(separator: "\n"))") {
            (try? await stack.webhookConsumer(endpoint)) != nil
        }
    }

    /// Stops the relay and waits until it has, after it released its endpoints' consumers (an empty file) for other
    /// tests: the relay has 32.
    public func stop() async {
        if (try? Self.write([], to: path)) != nil {
            let endpoints = self.endpoints.withLock { $0 }
            _ = await eventually(timeout: .seconds(10)) {
                for endpoint in endpoints where (try? await stack.webhookConsumer(endpoint)) != nil { return false }
                return true
            }
        }
        task.cancel()
        await task.value
    }

    private static func write(_ endpoints: [TestWebhookEndpoint], to path: String) throws {
        let temporary = path + ".new"
        try Data(MessageCoding.encodeSortingKeys(JSONValue.array(endpoints.map(\.entry)))).write(to: URL(fileURLWithPath: temporary))
        // Renamed over the old one, as an operator's tooling would: the relay never reads half a file.
        guard rename(temporary, path) == 0 else { throw TestStackError("cannot replace the webhooks file") }
    }
}

extension RunningStack {
    /// Sets the dev-idp's webhook inbox `name`.
    public func setWebhookInbox(_ name: String, _ settings: WebhookInboxes.Settings) async throws {
        let response = try await Self.send("PUT", devIDPURL + "/webhooks/" + name, body: MessageCoding.encode(settings))
        guard response.status == 204 else { throw TestStackError("the dev-idp refused the inbox settings: \(response.status)") }
    }

    /// The relay consumer `endpoint` claimed (its slot in the relay's bucket says `webhook claimed <name> ...`, or
    /// `released` since) and its state; nil when none is claimed for it.
    public func webhookConsumer(_ endpoint: TestWebhookEndpoint) async throws -> (durable: String, state: JetStream.ConsumerState)? {
        let connection = try await nats()
        let bucket = try await connection.jetStream.keyValue(Events.webhookBucket)
        for slot in Events.Durables.webhookSlots {
            // Claimed; or released, as another test's relay does with a consumer no replica reads (one stopped by a 410).
            guard let claim = try await bucket.get(WebhookSlot.claimKey(slot)),
                  ["webhook claimed \(endpoint.name) ", "webhook released \(endpoint.name) "]
                      .contains(where: String(decoding: claim.value, as: UTF8.self).hasPrefix),
                  let state = try await connection.jetStream.consumerState(stream: Events.stream, durable: slot) else { continue }
            return (slot, state)
        }
        return nil
    }

    /// What the dev-idp's webhook inbox `name` received.
    public func webhookInbox(_ name: String) async throws -> WebhookInboxes.Summary {
        try MessageCoding.decode(WebhookInboxes.Summary.self, from: try await Self.send("GET", devIDPURL + "/webhooks/" + name).body)
    }
}
