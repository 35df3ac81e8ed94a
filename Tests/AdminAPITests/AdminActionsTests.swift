import Contracts
import Foundation
import JSON
import Logging
import ServiceStubs
import Synchronization
import Testing
import TestSupport
@testable import AdminAPI

/// The admin-api's use cases on a trail in memory and the services stubbed: every request is recorded before
/// it acts, and refused, acting on nothing, when its record cannot be written.
@Suite("Admin actions: recorded before they act")
struct AdminActionsTests {
    /// A trail in memory that can be told to fail, and says in what order it was written.
    final class MemoryTrail: AuditRepository, Sendable {
        let state = Mutex<(records: [Int64: AuditRecord], log: [String], failing: Bool)>(([:], [], false))

        func store(_ batch: AuditBatch) async throws {}
        func begin(_ record: AuditRecord) async throws -> Int64 {
            try state.withLock { state in
                if state.failing { throw AdminAnswerError("the trail is down") }
                let id = Int64(state.records.count + 1)
                state.records[id] = record
                state.log.append("begin \(record.kind)")
                return id
            }
        }
        func finish(_ id: Int64, status: Int, details: [String: JSONValue]) async throws {
            state.withLock { state in
                state.records[id]?.details.merge(details.merging(["status": .integer(Int64(status))]) { $1 }) { $1 }
                state.log.append("finish \(status)")
            }
        }
        func records(memberId: Int64, before: Int64?, limit: Int) async throws -> [StoredAuditRecord] { [] }
        func sweep(_ limits: AuditLimits) async throws -> Int { 0 }
    }

    struct AdminAnswerError: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    let trail = MemoryTrail()
    let services = StubServices()
    let caller = AdminActions.Caller(admin: "alice", requestId: "request-1")

    var actions: AdminActions {
        let services = self.services
        return AdminActions(audit: trail, services: { services }, timeout: .seconds(1), statusOf: { $0.code == .notFound ? 404 : 503 },
                            logger: Logger(label: "admin-actions-test", level: .critical))
    }

    @Test("a suspension is recorded with the admin and reason before the member-service is asked, and its outcome after")
    func recordsFirst() async throws {
        services.answer(Endpoints.adminSuspendMember) { request in
            AdminSuspensionReply(memberId: request.memberId, status: .suspended, changed: true)
        }
        let reply = try await actions.suspend(42, reason: "fraud ring", by: caller)
        #expect(reply.changed)
        let sent = services.requests(to: Endpoints.adminSuspendMember)
        #expect(sent == [AdminMemberRequest(actor: AdminActor(admin: "alice", reason: "fraud ring"), memberId: 42)])
        let (records, log) = trail.state.withLock { ($0.records, $0.log) }
        #expect(log == ["begin admin.suspend", "finish 200"])
        let record = try #require(records[1])
        #expect(record.admin == "alice" && record.reason == "fraud ring" && record.memberId == 42)
        #expect(record.details["requestId"] == .string("request-1") && record.details["status"] == .integer(200))
    }

    @Test("when the record cannot be written, the request is refused with 503 and no service is asked")
    func refusesUnrecorded() async throws {
        trail.state.withLock { $0.failing = true }
        services.answer(Endpoints.adminDeleteMember, with: MemberDeleteReply(memberId: 42, deleted: true))
        let refused = await failure { try await actions.delete(42, reason: "erasure", by: caller) }
        #expect(refused?.code == .serviceUnavailable)
        #expect(services.calls(to: Endpoints.adminDeleteMember).isEmpty, "nothing is done unrecorded")
        let reads = await failure { _ = try await actions.member(42, by: caller) }
        #expect(reads?.code == .serviceUnavailable)
        #expect(services.calls(to: Endpoints.adminGetMember).isEmpty)
    }

    @Test("a failure is recorded with the status it is answered with; an ended session's record names its member once known")
    func recordsOutcomes() async throws {
        services.refuse(Endpoints.adminGetMember, with: ServiceFailure(.notFound, "No such member."))
        services.answer(Endpoints.adminListSessions, with: AdminSessionList(sessions: []))
        let missing = await failure { _ = try await actions.member(7, by: caller) }
        #expect(missing?.code == .notFound)
        services.answer(Endpoints.adminEndSession) { _ in AdminSessionEnded(memberId: 9, sessionsEnded: SessionsEnded(sessionIds: ["s"])) }
        try await actions.endSession("0b6f5c0e-0000-4000-8000-000000000000", reason: "stolen phone", by: caller)
        let records = trail.state.withLock { $0.records }
        #expect(records[1]?.kind == "admin.view" && records[1]?.details["status"] == .integer(404))
        #expect(records[2]?.kind == "admin.end-session" && records[2]?.reason == "stolen phone")
        #expect(records[2]?.details["memberId"] == .integer(9) && records[2]?.details["status"] == .integer(204))
    }
}
