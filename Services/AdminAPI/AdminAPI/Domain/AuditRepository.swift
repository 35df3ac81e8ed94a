import Foundation
import JSON

/// Where the audit trail is kept (the admin-api's `audit` schema; in memory in the tests).
public protocol AuditRepository: Sendable {
    /// Stores `records`, once each by ``AuditRecord/eventId`` (a record delivered again is ignored), in one
    /// statement. A member erased before (``AuditBatch/erasedMembers``, now or by an earlier batch) has its
    /// records stored without personal details, and those it had are scrubbed.
    func store(_ batch: AuditBatch) async throws

    /// Stores one admin action before it is carried out and returns its ID, for ``finish(_:status:details:)``.
    func begin(_ record: AuditRecord) async throws -> Int64

    /// Adds an admin action's outcome (the HTTP status answered, and what it found) to its record.
    func finish(_ id: Int64, status: Int, details: [String: JSONValue]) async throws

    /// A member's records, newest first: at most `limit`, those older than record `before` when given.
    func records(memberId: Int64, before: Int64?, limit: Int) async throws -> [StoredAuditRecord]

    /// Deletes what the limits no longer allow: records older than `retentionDays`, each member's oldest
    /// beyond `maxPerMember`, the oldest beyond `maxRecords` in all. Returns how many were deleted.
    func sweep(_ limits: AuditLimits) async throws -> Int
}

/// A batch of records from the event stream, and the members its `member.deleted` events erased.
public struct AuditBatch: Sendable, Equatable {
    /// The records, in stream order.
    public var records: [AuditRecord]
    /// Members deleted: their personal details go, now and in every record that comes later.
    public var erasedMembers: [Int64]

    /// Creates a batch.
    public init(records: [AuditRecord], erasedMembers: [Int64] = []) {
        self.records = records
        self.erasedMembers = erasedMembers
    }
}

/// How much of the trail is kept (`AUDIT_RETENTION_DAYS`, `AUDIT_MAX_PER_MEMBER`, `AUDIT_MAX_RECORDS`).
public struct AuditLimits: Sendable, Equatable {
    /// Days a record is kept.
    public var retentionDays: Int
    /// Records kept per member, the newest.
    public var maxPerMember: Int
    /// Records kept in all, the newest.
    public var maxRecords: Int

    /// Creates limits.
    public init(retentionDays: Int, maxPerMember: Int, maxRecords: Int) {
        self.retentionDays = retentionDays
        self.maxPerMember = maxPerMember
        self.maxRecords = maxRecords
    }
}
