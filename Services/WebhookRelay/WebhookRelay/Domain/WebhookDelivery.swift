import Contracts
import Foundation
import JSON
import Runtime
import Webhooks

/// The rules of one delivery (docs/events.md, "Webhooks"): what is sent for an event, and what an answer means.
public enum WebhookDelivery {
    /// An event made ready to post.
    public struct Prepared: Sendable, Equatable {
        /// The event's ID: the `webhook-id` of every attempt.
        public let id: String
        /// Its type (`member.created`).
        public let type: String
        /// The body posted: the event as on the stream, less what only the services may see.
        public let body: [UInt8]
    }

    /// The field of an event the relay orders by.
    private struct Probe: Decodable {
        struct Payload: Decodable {
            var memberId: Int64?
        }

        var data: Payload?
    }

    /// The key an event is ordered by: its member (nil when it names none).
    public static func memberKey(payload: [UInt8]) -> String? {
        guard let probe = try? MessageCoding.decode(Probe.self, from: payload), let member = probe.data?.memberId else { return nil }
        return String(member)
    }

    /// The fields of each event type's `data` that app backends get (docs/events.md, "Webhooks"): an allow-list, so
    /// that what the stream carries for the services alone (sealed provider grants, admins' names and reasons, the
    /// client's address) never leaves, nor a field added to the stream later until it is added here.
    public static let publicFields: [String: Set<String>] = [
        Events.memberCreated.name: ["memberId", "provider"],
        Events.memberLoggedIn.name: ["memberId", "provider", "isExistingMember", "deviceId", "platform", "appVersion"],
        Events.memberUpdated.name: ["memberId", "fields", "source"],
        Events.memberDeleted.name: ["memberId", "reason"],
        Events.memberSuspended.name: ["memberId", "generation"],
        Events.memberUnsuspended.name: ["memberId", "generation"],
        Events.identityLinked.name: ["memberId", "provider"],
        Events.identityUnlinked.name: ["memberId", "provider", "reason"],
        Events.sessionEnded.name: ["sessionId", "memberId", "reason", "tokensExpireAt"],
        Events.refreshTokenReused.name: ["sessionId", "memberId"],
        Events.appleNotification.name: ["type", "memberId"],
    ]

    /// What is posted for the event `payload`: its envelope (`v`, `id`, `type`, `occurredAt`) and the public fields of
    /// its `data` (``publicFields``), keys sorted; nil when it cannot be read or its type has no public form.
    public static func prepare(payload: [UInt8]) -> Prepared? {
        guard case .object(let event) = try? MessageCoding.decode(JSONValue.self, from: payload),
              case .string(let id)? = event["id"], !id.isEmpty, case .string(let type)? = event["type"],
              let fields = publicFields[type], case .object(let data)? = event["data"] else { return nil }
        var body: [String: JSONValue] = ["id": .string(id), "type": .string(type), "data": .object(data.filter { fields.contains($0.key) })]
        body["v"] = event["v"]
        body["occurredAt"] = event["occurredAt"]
        guard let bytes = try? MessageCoding.encodeSortingKeys(JSONValue.object(body)) else { return nil }
        return Prepared(id: id, type: type, body: bytes)
    }

    /// What an endpoint's answer means.
    public enum Verdict: Sendable, Equatable {
        /// 2xx: delivered.
        case delivered
        /// 410: the endpoint is gone; stop sending to it until the file changes.
        case gone
        /// Anything else: try again later.
        case failed
    }

    /// The verdict on HTTP status `status`.
    public static func verdict(status: Int) -> Verdict {
        switch status {
        case 200...299: .delivered
        case 410: .gone
        default: .failed
        }
    }

    /// The waits between attempts on one event: 1 s after the first failure, doubling to 5 minutes, each drawn
    /// from half to all of that (so the retries of many events spread out).
    public static let backoff = Backoff(first: .seconds(1), cap: .seconds(300), jitter: 0.5...1.0)

    /// Whether an event stored at `storedAt` is past retrying at `now`: the stream drops it at `maxAge`.
    public static func isExpired(storedAt: Date, maxAge: Duration, now: Date = Date()) -> Bool {
        now.timeIntervalSince(storedAt) >= maxAge.timeInterval
    }

    /// The headers of an attempt at `timestamp` (Unix seconds).
    public static func headers(_ prepared: Prepared, timestamp: Int64, secret: WebhookSecret) -> [(String, String)] {
        [
            ("Content-Type", "application/json"),
            (WebhookSignature.Header.id, prepared.id),
            (WebhookSignature.Header.timestamp, String(timestamp)),
            (WebhookSignature.Header.signature, WebhookSignature.sign(id: prepared.id, timestamp: timestamp, body: prepared.body, secret: secret)),
        ]
    }
}
