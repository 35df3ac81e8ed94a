import Contracts
import Foundation
import JSON

/// How an event of the stream becomes an audit record: what the trail keeps of each kind (the provider,
/// the device and where from for a login; field names only for a profile change; the admin and reason of
/// a suspension; a deletion's reason and admin, never its sealed grants; an Apple notification's type,
/// not the subject it names).
public enum AuditEvents {
    /// The record of the event `payload` published on `subject`; nil when it cannot be read (an event of
    /// another release's shape is logged and skipped by the caller, not retried forever), or when its `type` is
    /// not its subject's: the subject is what nats-server let its publisher write (a member-service may publish
    /// `events.member.deleted`, a token-issuer may not), so a `member.deleted` sent on another subject erases no one.
    public static func record(subject: String, payload: [UInt8]) -> AuditRecord? {
        let name = subject.hasPrefix("events.") ? String(subject.dropFirst("events.".count)) : subject
        guard let record = decoded(name, payload), record.kind == name else { return nil }
        return record
    }

    /// The record of an event of type `name`, as its payload says.
    private static func decoded(_ name: String, _ payload: [UInt8]) -> AuditRecord? {
        do {
            switch name {
            case Events.memberCreated.name:
                return try read(MemberCreated.self, payload) { event in
                    (event.memberId, nil, nil, ["provider": .string(event.provider.rawValue)])
                }
            case Events.memberLoggedIn.name:
                return try read(MemberLoggedIn.self, payload) { event in
                    var details: [String: JSONValue] = ["provider": .string(event.provider.rawValue), "isNew": .bool(!event.isExistingMember)]
                    details["deviceId"] = event.deviceId.map(JSONValue.string)
                    details["clientAddress"] = event.clientAddress.map(JSONValue.string)
                    details["platform"] = event.platform.map(JSONValue.string)
                    details["appVersion"] = event.appVersion.map(JSONValue.string)
                    return (event.memberId, nil, nil, details)
                }
            case Events.memberUpdated.name:
                return try read(MemberUpdated.self, payload) { event in
                    (event.memberId, nil, nil, ["fields": .array(event.fields.map(JSONValue.string)), "source": .string(event.source)])
                }
            case Events.memberDeleted.name:
                // The grants are sealed provider credentials: they never reach the trail.
                return try read(MemberDeleted.self, payload) { event in
                    (event.memberId, event.actor?.admin, event.actor?.reason, ["reason": .string(event.reason)])
                }
            case Events.identityLinked.name:
                return try read(IdentityLinked.self, payload) { event in
                    (event.memberId, nil, nil, ["provider": .string(event.provider.rawValue)])
                }
            case Events.identityUnlinked.name:
                return try read(IdentityUnlinked.self, payload) { event in
                    (event.memberId, nil, nil, ["provider": .string(event.provider.rawValue), "reason": .string(event.reason)])
                }
            case Events.sessionEnded.name:
                return try read(SessionEnded.self, payload) { event in
                    (event.memberId, nil, nil, ["sessionId": .string(event.sessionId), "reason": .string(event.reason)])
                }
            case Events.refreshTokenReused.name:
                return try read(RefreshTokenReused.self, payload) { event in
                    (event.memberId, nil, nil, ["sessionId": .string(event.sessionId)])
                }
            case Events.memberSuspended.name:
                return try read(MemberSuspended.self, payload) { event in
                    (event.memberId, event.admin, event.reason, ["generation": .integer(event.generation)])
                }
            case Events.memberUnsuspended.name:
                return try read(MemberUnsuspended.self, payload) { event in
                    (event.memberId, event.admin, event.reason, ["generation": .integer(event.generation)])
                }
            case Events.appleNotification.name:
                // The subject is Apple's user ID, personal data: only the type is kept.
                return try read(AppleNotificationReceived.self, payload) { event in
                    (event.memberId, nil, nil, ["type": .string(event.type)])
                }
            default:
                // A kind this release does not know: its name and time, nothing of its payload.
                let envelope = try MessageCoding.decode(EventEnvelope<JSONValue>.self, from: payload)
                return AuditRecord(eventId: envelope.id, memberId: nil, kind: envelope.type, occurredAt: envelope.occurredAt)
            }
        } catch {
            return nil
        }
    }

    /// The member a `member.deleted` record erases, if `record` is one.
    public static func erasedMember(_ record: AuditRecord) -> Int64? {
        record.kind == Events.memberDeleted.name ? record.memberId : nil
    }

    /// Reads an event of payload type `Payload` and keeps what `keep` returns of it: member, admin, reason, details.
    private static func read<Payload: Codable & Sendable>(
        _ type: Payload.Type, _ payload: [UInt8],
        _ keep: (Payload) -> (Int64?, String?, String?, [String: JSONValue])
    ) throws -> AuditRecord {
        let envelope = try MessageCoding.decode(EventEnvelope<Payload>.self, from: payload)
        let (memberId, admin, reason, details) = keep(envelope.data)
        return AuditRecord(eventId: envelope.id, memberId: memberId, kind: envelope.type, occurredAt: envelope.occurredAt,
                           admin: admin, reason: reason, details: details)
    }
}
