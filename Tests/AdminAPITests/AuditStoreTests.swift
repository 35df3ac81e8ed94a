import Contracts
import Foundation
import JSON
import Postgres
import Testing
import TestSupport
@testable import AdminAPI

/// `AuditStore` against a fresh database of its own (as admin_api), without NATS.
@Suite("Audit store (PostgreSQL)")
struct AuditStoreTests {
    static func withStore(_ body: (AuditStore, PostgresClient) async throws -> Void) async throws {
        let database = try await SchemaDatabase.fresh(.adminAPI, schema: AuditMigrations.schema, migrations: AuditMigrations.all)
        do {
            try await body(AuditStore(database: database), database)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    static func login(_ member: Int64, id: String = UUID().uuidString, at date: Date = Date()) -> AuditRecord {
        AuditRecord(eventId: id, memberId: member, kind: "member.logged-in", occurredAt: date,
                    details: ["provider": .string("google"), "deviceId": .string("ipad-\(member)"), "clientAddress": .string("203.0.113.9"),
                              "platform": .string("iPadOS 17"), "appVersion": .string("App 2.1")])
    }

    @Test("a batch is stored once by event ID; pages come newest first with a cursor")
    func storeAndPage() async throws {
        try await Self.withStore { store, _ in
            let records = (0..<5).map { Self.login(1, id: "e-\($0)") } + [Self.login(2, id: "other")]
            try await store.store(AuditBatch(records: records))
            try await store.store(AuditBatch(records: Array(records.prefix(3))))  // redelivered
            let first = try await store.records(memberId: 1, before: nil, limit: 3)
            #expect(first.map(\.record.eventId) == ["e-4", "e-3", "e-2"])
            let second = try await store.records(memberId: 1, before: first.last?.id, limit: 3)
            #expect(second.map(\.record.eventId) == ["e-1", "e-0"])
            #expect(first[0].record.details["deviceId"] == .string("ipad-1"))
        }
    }

    @Test("a deletion scrubs the member's records and those that come later; others keep theirs")
    func scrub() async throws {
        try await Self.withStore { store, _ in
            try await store.store(AuditBatch(records: [Self.login(5, id: "before"), Self.login(6, id: "neighbour")]))
            let deleted = AuditRecord(eventId: "deleted", memberId: 5, kind: "member.deleted", occurredAt: Date(), details: ["reason": .string("requested")])
            try await store.store(AuditBatch(records: [deleted], erasedMembers: [5]))
            try await store.store(AuditBatch(records: [Self.login(5, id: "late")]))  // a login event redelivered after the deletion
            let kept = try await store.records(memberId: 5, before: nil, limit: 10)
            #expect(kept.map(\.record.kind) == ["member.logged-in", "member.deleted", "member.logged-in"])
            #expect(kept.allSatisfy { $0.record.details["deviceId"] == nil && $0.record.details["clientAddress"] == nil })
            #expect(kept.allSatisfy { Set($0.record.details.keys).isDisjoint(with: AuditRecord.personalDetails) })
            #expect(kept[0].record.details["provider"] == .string("google"))
            #expect(try await store.records(memberId: 6, before: nil, limit: 1).first?.record.details["deviceId"] == .string("ipad-6"))
        }
    }

    @Test("an admin action is recorded first, its outcome added after")
    func adminAction() async throws {
        try await Self.withStore { store, _ in
            let id = try await store.begin(AuditRecord(eventId: "admin:1", memberId: 8, kind: "admin.view", occurredAt: Date(), admin: "alice",
                                                       details: ["requestId": .string("r-1")]))
            try await store.finish(id, status: 200, details: [:])
            let record = try #require(try await store.records(memberId: 8, before: nil, limit: 1).first)
            #expect(record.id == id && record.record.admin == "alice")
            #expect(record.record.details == ["requestId": .string("r-1"), "status": .integer(200)])
        }
    }

    @Test("the sweep deletes past retention, each member's oldest over the cap, the oldest over the total")
    func sweep() async throws {
        try await Self.withStore { store, _ in
            let old = Date().addingTimeInterval(-3 * 86_400)
            try await store.store(AuditBatch(records: [Self.login(10, id: "old", at: old)]))
            try await store.store(AuditBatch(records: (0..<150).map { Self.login(11, id: "m11-\($0)") }))
            try await store.store(AuditBatch(records: (0..<900).map { Self.login(Int64(1_000 + $0), id: "many-\($0)") }))
            let deleted = try await store.sweep(AuditLimits(retentionDays: 2, maxPerMember: 100, maxRecords: 1_000))
            #expect(try await store.records(memberId: 10, before: nil, limit: 10).isEmpty)
            let member11 = try await store.records(memberId: 11, before: nil, limit: 500)
            // 150 - 50 over the cap; then 100 + 900 = 1,000 in all: nothing more goes.
            #expect(member11.count == 100)
            #expect(member11.first?.record.eventId == "m11-149")
            #expect(deleted == 51)
            #expect(try await store.sweep(AuditLimits(retentionDays: 2, maxPerMember: 100, maxRecords: 1_000)) == 0)
            // A smaller total cap takes the oldest: member 11's records came before the 900.
            #expect(try await store.sweep(AuditLimits(retentionDays: 2, maxPerMember: 100, maxRecords: 1_000 - 40)) == 40)
            #expect(try await store.records(memberId: 11, before: nil, limit: 500).count == 60)
        }
    }

    @Test("a deletion also drops the admins' free-text reasons of the member's records, now and later; the admin's name stays")
    func scrubsReasons() async throws {
        try await Self.withStore { store, _ in
            let suspended = AuditRecord(eventId: "suspended", memberId: 12, kind: "member.suspended", occurredAt: Date(), admin: "alice",
                                        reason: "asked by jane@example.com", details: ["generation": .integer(1)])
            try await store.store(AuditBatch(records: [suspended]))
            let deleted = AuditRecord(eventId: "deleted-12", memberId: 12, kind: "member.deleted", occurredAt: Date(), admin: "alice",
                                      reason: "erasure request of jane@example.com", details: ["reason": .string("admin")])
            try await store.store(AuditBatch(records: [deleted], erasedMembers: [12]))
            let late = AuditRecord(eventId: "late-12", memberId: 12, kind: "member.unsuspended", occurredAt: Date(), admin: "bob",
                                   reason: "jane again", details: [:])
            try await store.store(AuditBatch(records: [late]))
            let records = try await store.records(memberId: 12, before: nil, limit: 10)
            #expect(records.count == 3)
            #expect(records.allSatisfy { $0.record.reason == nil }, "\(records.map(\.record.reason))")
            #expect(records.map(\.record.admin) == ["bob", "alice", "alice"])
        }
    }

    @Test("past the per-member cap, what a member repeats at will goes first, then the oldest logins; admins' changes and suspensions stay")
    func capKeepsEvidence() async throws {
        try await Self.withStore { store, _ in
            let suspension = AuditRecord(eventId: "s-13", memberId: 13, kind: "member.suspended", occurredAt: Date(), admin: "alice",
                                         reason: "case 1", details: [:])
            let firstLogin = Self.login(13, id: "thief-login")
            try await store.store(AuditBatch(records: [suspension, firstLogin]))
            // A flood of profile changes, then more logins, well past a cap of 100.
            let updates = (0..<150).map { AuditRecord(eventId: "u-\($0)", memberId: 13, kind: "member.updated", occurredAt: Date(),
                                                      details: ["fields": .array([.string("name")])]) }
            try await store.store(AuditBatch(records: updates + (0..<60).map { Self.login(13, id: "l-\($0)") }))
            _ = try await store.sweep(AuditLimits(retentionDays: 2, maxPerMember: 100, maxRecords: 1_000_000))
            let kept = try await store.records(memberId: 13, before: nil, limit: 500)
            #expect(kept.count == 100)
            let ids = Set(kept.map(\.record.eventId))
            #expect(ids.contains("s-13") && ids.contains("thief-login"), "the suspension and the first login outlive the flood")
            #expect(kept.filter { $0.record.kind == "member.updated" }.count == 100 - 62)
        }
    }

    @Test("an admin record's outcome that names a member makes it that member's record (an ended session's)")
    func finishNamesMember() async throws {
        try await Self.withStore { store, _ in
            let id = try await store.begin(AuditRecord(eventId: "admin:end", memberId: nil, kind: "admin.end-session", occurredAt: Date(),
                                                       admin: "alice", reason: "stolen phone", details: ["sessionId": .string("s-1")]))
            try await store.finish(id, status: 204, details: ["memberId": .integer(14)])
            let record = try #require(try await store.records(memberId: 14, before: nil, limit: 1).first)
            #expect(record.id == id && record.record.memberId == 14 && record.record.reason == "stolen phone")
        }
    }

    @Test("no cap deletes what admins did: a member repeating what it may (refresh-token reuse here) fills its own cap and the total, never an admin's record")
    func adminRecordsOutliveFloods() async throws {
        try await Self.withStore { store, _ in
            let suspension = AuditRecord(eventId: "admin-15", memberId: 15, kind: "admin.suspend", occurredAt: Date(), admin: "alice",
                                         reason: "case 2", details: [:])
            try await store.store(AuditBatch(records: [suspension]))
            let reuses = (0..<20).map { AuditRecord(eventId: "reuse-\($0)", memberId: 16, kind: "refresh-token.reused", occurredAt: Date(),
                                                    details: ["sessionId": .string("s-\($0)")]) }
            try await store.store(AuditBatch(records: reuses))
            _ = try await store.sweep(AuditLimits(retentionDays: 365, maxPerMember: 5, maxRecords: 3))
            #expect(try await store.records(memberId: 15, before: nil, limit: 10).map(\.record.eventId) == ["admin-15"])
            #expect(try await store.records(memberId: 16, before: nil, limit: 50).count <= 5)
        }
    }
}
