import Foundation
import JSON

/// One entry of the audit trail: an event of the stream (its ID is the event's) or an admin's request
/// (its ID made by the admin-api), with the member it concerns, the admin and reason where there are,
/// and what else the trail keeps of it (`details`: never a token, a grant or a provider's subject).
public struct AuditRecord: Sendable, Equatable {
    /// Unique: the event's ID, or `admin:<uuid>` for an admin's request; the store keeps one record each.
    public var eventId: String
    /// The member it concerns, when there is one.
    public var memberId: Int64?
    /// The event's name (`member.logged-in`) or the admin action (`admin.suspend`).
    public var kind: String
    /// When it happened.
    public var occurredAt: Date
    /// The admin who acted, for admin actions and the changes they made.
    public var admin: String?
    /// The reason given.
    public var reason: String?
    /// The rest, by name (`provider`, `deviceId`, `fields`...).
    public var details: [String: JSONValue]

    /// Creates a record.
    public init(eventId: String, memberId: Int64?, kind: String, occurredAt: Date, admin: String? = nil, reason: String? = nil,
                details: [String: JSONValue] = [:]) {
        self.eventId = eventId
        self.memberId = memberId
        self.kind = kind
        self.occurredAt = occurredAt
        self.admin = admin
        self.reason = reason
        self.details = details
    }

    /// The details that name or locate a person (an email, a name, a client address, a device and what it
    /// runs): dropped from every record of a deleted member, which keeps its ID, kinds and times.
    public static let personalDetails: Set<String> = ["email", "name", "clientAddress", "deviceId", "platform", "appVersion"]
}

/// A record as the store keeps it, with its ID (increasing: the newer, the higher).
public struct StoredAuditRecord: Sendable, Equatable {
    /// The store's ID: the paging cursor.
    public var id: Int64
    /// The record.
    public var record: AuditRecord

    /// Creates one.
    public init(id: Int64, record: AuditRecord) {
        self.id = id
        self.record = record
    }
}
