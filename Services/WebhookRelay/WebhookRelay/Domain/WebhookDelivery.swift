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

    /// The fields of an event the relay reads itself.
    private struct Probe: Decodable {
        struct Payload: Decodable {
            var memberId: Int64?
        }

        var id: String
        var type: String
        var data: Payload?
    }

    /// The key an event is ordered by: its member (nil when it names none).
    public static func memberKey(payload: [UInt8]) -> String? {
        guard let probe = try? MessageCoding.decode(Probe.self, from: payload), let member = probe.data?.memberId else { return nil }
        return String(member)
    }

    /// What is posted for the event `payload`; nil when it cannot be read (it would never read better).
    ///
    /// The body is the event's JSON as stored, except `member.deleted`, whose `grants` are left out: they are
    /// the provider credentials sealed for the token-verifier alone.
    public static func prepare(payload: [UInt8]) -> Prepared? {
        guard let probe = try? MessageCoding.decode(Probe.self, from: payload), !probe.id.isEmpty else { return nil }
        guard probe.type == Events.memberDeleted.name else { return Prepared(id: probe.id, type: probe.type, body: payload) }
        guard case .object(var event) = try? MessageCoding.decode(JSONValue.self, from: payload),
              case .object(var data)? = event["data"] else { return nil }
        data["grants"] = nil
        event["data"] = .object(data)
        guard let body = try? MessageCoding.encodeSortingKeys(JSONValue.object(event)) else { return nil }
        return Prepared(id: probe.id, type: probe.type, body: body)
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
