import Foundation
import HTTPServer
import JSON
import Synchronization
import Webhooks

/// Webhook receivers for local runs, the container test and the load test (never production): each inbox takes
/// `POST /webhooks/<inbox>`, checks the Standard Webhooks signature when it knows the secret, answers the status
/// it was told to, and counts what came, by event ID.
///
/// - `PUT /webhooks/<inbox>` (``Settings``: `secret`, `status`, `location`) → 204: makes or sets the inbox.
/// - `POST /webhooks/<inbox>` → the inbox's status (200 unless set; with `Location` for a 3xx).
/// - `GET /webhooks/<inbox>` → ``Summary``: every event ID, its type and member, its attempts and 2xx answers.
public final class WebhookInboxes: Sendable {
    /// How an inbox answers.
    public struct Settings: Codable, Sendable {
        /// The endpoint's secret (`whsec_...`): signatures are checked with it.
        public var secret: String?
        /// The status every delivery is answered with. Default 200.
        public var status: Int?
        /// The `Location` of a 3xx answer.
        public var location: String?
        /// How long each delivery is answered after, in milliseconds (a slow receiver). Default 0.
        public var delayMs: Int?
        /// Whether the last delivery of each event is kept as it came (body, timestamp, signature), for a test that
        /// checks the signature itself. Default false.
        public var keepDeliveries: Bool?

        /// Settings; nil leaves a setting as it was (a new inbox: no secret, 200, nothing kept).
        public init(secret: String? = nil, status: Int? = nil, location: String? = nil, delayMs: Int? = nil, keepDeliveries: Bool? = nil) {
            self.secret = secret
            self.delayMs = delayMs
            self.status = status
            self.location = location
            self.keepDeliveries = keepDeliveries
        }
    }

    /// What an inbox received.
    public struct Summary: Codable, Sendable {
        /// One event ID.
        public struct Event: Codable, Sendable {
            public var id: String
            public var type: String
            public var memberId: Int64?
            /// Deliveries of it, whatever the answer.
            public var attempts: Int
            /// Deliveries of it answered 2xx: more than one is a duplicate the relay sent on its own.
            public var delivered: Int
            /// Whether every delivery of it carried a good signature (false when the inbox has no secret).
            public var verified: Bool
            /// The last delivery as it came, when the inbox keeps them: its body (base64), `webhook-timestamp` and
            /// `webhook-signature`.
            public var body: String?
            public var timestamp: String?
            public var signature: String?
        }

        /// Deliveries, whatever the answer.
        public var attempts: Int
        /// Event IDs answered 2xx more than once.
        public var duplicates: Int
        /// Every event ID, in the order first received (at most ``WebhookInboxes/maxEvents``).
        public var events: [Event]
    }

    /// The most event IDs an inbox keeps.
    public static let maxEvents = 200_000

    private struct Inbox {
        var secret: WebhookSecret?
        var status = 200
        var location: String?
        var keepDeliveries = false
        var delayMs = 0
        var attempts = 0
        var order: [String] = []
        var events: [String: Summary.Event] = [:]
    }

    private let inboxes = Mutex<[String: Inbox]>([:])

    /// No inbox yet.
    public init() {}

    /// Answers a request under `/webhooks/`; `name` is the inbox.
    func handle(_ request: HTTPRequest, name: String) async -> HTTPResponse {
        switch request.method {
        case "PUT":
            guard let settings = try? MessageCoding.decode(Settings.self, from: request.body),
                  settings.status.map({ (200...599).contains($0) }) ?? true else {
                return DevIDPServer.error(400, "send {\"secret\": \"whsec_...\", \"status\": 200, \"location\": null}")
            }
            let secret: WebhookSecret?
            do {
                secret = try settings.secret.map { try WebhookSecret($0) }
            } catch {
                return DevIDPServer.error(400, "\(error)")
            }
            inboxes.withLock { inboxes in
                var inbox = inboxes[name] ?? Inbox()
                inbox.secret = secret ?? inbox.secret
                inbox.status = settings.status ?? inbox.status
                inbox.location = settings.location
                inbox.keepDeliveries = settings.keepDeliveries ?? inbox.keepDeliveries
                inbox.delayMs = min(max(settings.delayMs ?? inbox.delayMs, 0), 60_000)
                inboxes[name] = inbox
            }
            return HTTPResponse(status: 204)
        case "POST":
            let delay = inboxes.withLock { $0[name]?.delayMs ?? 0 }
            if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
            return receive(request, name: name)
        case "GET":
            return DevIDPServer.json(summary(name))
        default:
            return HTTPResponse(status: 405)
        }
    }

    /// The fields of a delivered event the inbox reads.
    private struct Probe: Decodable {
        struct Payload: Decodable {
            var memberId: Int64?
        }

        var type: String?
        var data: Payload?
    }

    private func receive(_ request: HTTPRequest, name: String) -> HTTPResponse {
        let id = request.header(WebhookSignature.Header.id) ?? ""
        let probe = try? MessageCoding.decode(Probe.self, from: request.body)
        return inboxes.withLock { inboxes in
            var inbox = inboxes[name] ?? Inbox()
            defer { inboxes[name] = inbox }
            inbox.attempts += 1
            let verified = inbox.secret.map { secret in
                WebhookSignature.verify(id: id, timestamp: request.header(WebhookSignature.Header.timestamp) ?? "",
                                        signatures: request.header(WebhookSignature.Header.signature) ?? "", body: request.body, secret: secret)
            } ?? false
            let delivered = (200...299).contains(inbox.status) ? 1 : 0
            var event: Summary.Event
            if let known = inbox.events[id] {
                event = known
                event.attempts += 1
                event.delivered += delivered
                event.verified = event.verified && verified
            } else if inbox.order.count < Self.maxEvents {
                inbox.order.append(id)
                event = Summary.Event(id: id, type: probe?.type ?? "", memberId: probe?.data?.memberId, attempts: 1,
                                      delivered: delivered, verified: verified)
            } else {
                return HTTPResponse(status: 507)
            }
            if inbox.keepDeliveries {
                event.body = Data(request.body).base64EncodedString()
                event.timestamp = request.header(WebhookSignature.Header.timestamp)
                event.signature = request.header(WebhookSignature.Header.signature)
            }
            inbox.events[id] = event
            var headers: [(String, String)] = []
            if let location = inbox.location { headers.append(("Location", location)) }
            return HTTPResponse(status: inbox.status, headers: headers)
        }
    }

    /// What inbox `name` received so far (nothing for an inbox never used).
    public func summary(_ name: String) -> Summary {
        inboxes.withLock { inboxes in
            let inbox = inboxes[name] ?? Inbox()
            let events = inbox.order.compactMap { inbox.events[$0] }
            return Summary(attempts: inbox.attempts, duplicates: events.count { $0.delivered > 1 }, events: events)
        }
    }
}
