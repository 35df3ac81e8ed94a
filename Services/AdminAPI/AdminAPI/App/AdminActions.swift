import Contracts
import Foundation
import JSON
import Logging
import Messaging

/// The admin-api's use cases, one method per endpoint. Each is recorded in the audit trail before it acts
/// (``audited(_:success:_:)``): the record of the attempt is written first, and when it cannot be written the
/// request is refused with 503 and nothing is done, so no read or change escapes the trail by making the
/// database fail; the outcome (the status answered, what was found) is added once it is known.
public struct AdminActions: Sendable {
    let audit: any AuditRepository
    let services: @Sendable () throws(ServiceFailure) -> any ServiceCalling
    let timeout: Duration
    let statusOf: @Sendable (ServiceFailure) -> Int
    let logger: Logger
    let now: @Sendable () -> Date

    /// Use cases over `audit` and the services `services` reaches (503 while NATS is away), each call
    /// given `timeout`; `statusOf` is the HTTP status a failure is answered with (recorded as the outcome).
    public init(audit: any AuditRepository, services: @escaping @Sendable () throws(ServiceFailure) -> any ServiceCalling,
                timeout: Duration, statusOf: @escaping @Sendable (ServiceFailure) -> Int, logger: Logger,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.audit = audit
        self.services = services
        self.timeout = timeout
        self.statusOf = statusOf
        self.logger = logger
        self.now = now
    }

    /// Who asks: the admin the token named, and the request's ID (recorded with the action).
    public struct Caller: Sendable {
        /// The admin's name.
        public let admin: String
        /// The request's ID.
        public let requestId: String

        /// Creates a caller.
        public init(admin: String, requestId: String) {
            self.admin = admin
            self.requestId = requestId
        }
    }

    /// One action as the trail records it.
    struct Action {
        let kind: String
        let caller: Caller
        var memberId: Int64?
        var reason: String?
        var details: [String: JSONValue] = [:]
    }

    // MARK: The use cases

    /// The members of an identity or an email. Recorded: the kind of search and provider, and the IDs found.
    public func search(_ search: MemberSearch, by caller: Caller) async throws(ServiceFailure) -> [AdminMemberSummary] {
        var action = Action(kind: "admin.search", caller: caller)
        action.details["query"] = .string(search.auditName)
        if case .identity(let provider, _) = search { action.details["provider"] = .string(provider.rawValue) }
        return try await audited(action, success: 200) { () throws(ServiceFailure) in
            let actor = AdminActor(admin: caller.admin)
            let request = switch search {
            case .identity(let provider, let subject): AdminFindMembersRequest(actor: actor, provider: provider, subject: subject)
            case .email(let email): AdminFindMembersRequest(actor: actor, email: email)
            }
            let list = try await services().call(Endpoints.adminFindMembers, request, timeout: timeout, retries: 1)
            return (list.members, ["found": .array(list.members.map { .integer($0.memberId) })])
        }
    }

    /// A member's detail and sessions, asked of the member-service and the issuer at once.
    public func member(_ memberId: Int64, by caller: Caller) async throws(ServiceFailure) -> MemberView {
        try await audited(Action(kind: "admin.view", caller: caller, memberId: memberId), success: 200) { () throws(ServiceFailure) in
            (try await memberView(memberId, caller), [:])
        }
    }

    /// Suspends a member (its sessions end; it cannot sign in until lifted).
    public func suspend(_ memberId: Int64, reason: String, by caller: Caller) async throws(ServiceFailure) -> AdminSuspensionReply {
        try await audited(Action(kind: "admin.suspend", caller: caller, memberId: memberId, reason: reason), success: 200) { () throws(ServiceFailure) in
            let reply = try await services().call(Endpoints.adminSuspendMember,
                                                  AdminMemberRequest(actor: AdminActor(admin: caller.admin, reason: reason), memberId: memberId),
                                                  timeout: timeout, retries: 1)
            return (reply, ["changed": .bool(reply.changed)])
        }
    }

    /// Lifts a member's suspension.
    public func unsuspend(_ memberId: Int64, reason: String, by caller: Caller) async throws(ServiceFailure) -> AdminSuspensionReply {
        try await audited(Action(kind: "admin.unsuspend", caller: caller, memberId: memberId, reason: reason), success: 200) { () throws(ServiceFailure) in
            let reply = try await services().call(Endpoints.adminUnsuspendMember,
                                                  AdminMemberRequest(actor: AdminActor(admin: caller.admin, reason: reason), memberId: memberId),
                                                  timeout: timeout, retries: 1)
            return (reply, ["changed": .bool(reply.changed)])
        }
    }

    /// Deletes a member as `DELETE /api/members/me` does.
    public func delete(_ memberId: Int64, reason: String, by caller: Caller) async throws(ServiceFailure) {
        try await audited(Action(kind: "admin.delete", caller: caller, memberId: memberId, reason: reason), success: 204) { () throws(ServiceFailure) in
            _ = try await services().call(Endpoints.adminDeleteMember,
                                          AdminMemberRequest(actor: AdminActor(admin: caller.admin, reason: reason), memberId: memberId),
                                          timeout: timeout, retries: 0)
            return ((), [:])
        }
    }

    /// Ends one session, whoever's it is (`NOT_FOUND` when there is none). The record names its member once known.
    public func endSession(_ sessionId: String, reason: String, by caller: Caller) async throws(ServiceFailure) {
        var action = Action(kind: "admin.end-session", caller: caller, reason: reason)
        action.details["sessionId"] = .string(sessionId)
        try await audited(action, success: 204) { () throws(ServiceFailure) in
            let reply = try await services().call(Endpoints.adminEndSession,
                                                  AdminEndSessionRequest(actor: AdminActor(admin: caller.admin, reason: reason), sessionId: sessionId),
                                                  timeout: timeout, retries: 0)
            return ((), ["memberId": .integer(reply.memberId), "ended": .bool(!reply.sessionsEnded.sessionIds.isEmpty)])
        }
    }

    /// One page of a member's audit records, newest first, and the cursor of the next page (nil: the last).
    public func auditPage(_ memberId: Int64, before: Int64?, limit: Int, by caller: Caller) async throws(ServiceFailure)
        -> (records: [StoredAuditRecord], next: Int64?) {
        try await audited(Action(kind: "admin.audit", caller: caller, memberId: memberId), success: 200) { () throws(ServiceFailure) in
            let records = try await read { try await audit.records(memberId: memberId, before: before, limit: limit + 1) }
            let page = Array(records.prefix(limit))
            return ((page, records.count > limit ? page.last?.id : nil), [:])
        }
    }

    /// Everything held about a member (GDPR article 15): the member-service's detail, the sessions and every
    /// audit record kept of it (at most `maxRecords`, the per-member cap).
    public func export(_ memberId: Int64, maxRecords: Int, by caller: Caller) async throws(ServiceFailure) -> MemberExport {
        try await audited(Action(kind: "admin.export", caller: caller, memberId: memberId), success: 200) { () throws(ServiceFailure) in
            let view = try await memberView(memberId, caller)
            let records = try await read { try await audit.records(memberId: memberId, before: nil, limit: maxRecords) }
            return (MemberExport(exportedAt: now(), member: view, audit: records), ["records": .integer(Int64(records.count))])
        }
    }

    // MARK: The pieces

    /// The detail and the sessions, the two calls at once.
    private func memberView(_ memberId: Int64, _ caller: Caller) async throws(ServiceFailure) -> MemberView {
        let client = try services()
        let request = AdminMemberRequest(actor: AdminActor(admin: caller.admin), memberId: memberId)
        let timeout = self.timeout
        async let detail = Self.outcome { () async throws(ServiceFailure) in
            try await client.call(Endpoints.adminGetMember, request, timeout: timeout, retries: 1)
        }
        async let sessions = Self.outcome { () async throws(ServiceFailure) in
            try await client.call(Endpoints.adminListSessions, request, timeout: timeout, retries: 1)
        }
        let (detailResult, sessionsResult) = await (detail, sessions)
        return MemberView(detail: try detailResult.get(), sessions: try sessionsResult.get().sessions)
    }

    /// `body`'s value or failure, as a value (what `async let` can hold without losing the failure's type).
    private static func outcome<T: Sendable>(_ body: @Sendable () async throws(ServiceFailure) -> T) async -> Result<T, ServiceFailure> {
        do throws(ServiceFailure) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// A read of the trail: a database failure is 503.
    private func read<T>(_ body: () async throws -> T) async throws(ServiceFailure) -> T {
        do {
            return try await body()
        } catch {
            logger.error("audit trail unreadable", ["error": String(describing: error)])
            throw ServiceFailure.unavailable
        }
    }

    /// Records `action`, runs `body`, then records its outcome: the status answered (`success` or the
    /// failure's) and the details `body` adds. Refused with 503, doing nothing, when the record cannot be written.
    private func audited<T>(_ action: Action, success: Int,
                            _ body: () async throws(ServiceFailure) -> (T, [String: JSONValue])) async throws(ServiceFailure) -> T {
        var details = action.details
        details["requestId"] = .string(action.caller.requestId)
        let record = AuditRecord(eventId: "admin:\(UUID().uuidString.lowercased())", memberId: action.memberId, kind: action.kind,
                                 occurredAt: now(), admin: action.caller.admin, reason: action.reason, details: details)
        let id: Int64
        do {
            id = try await audit.begin(record)
        } catch {
            logger.error("audit record not written; the request is refused", ["audit.kind": action.kind, "error": String(describing: error)])
            throw ServiceFailure.unavailable
        }
        do {
            let (value, found) = try await body()
            await finish(id, action, status: success, details: found)
            return value
        } catch {
            await finish(id, action, status: statusOf(error), details: ["error": .string(error.code.rawValue)])
            throw error
        }
    }

    private func finish(_ id: Int64, _ action: Action, status: Int, details: [String: JSONValue]) async {
        do {
            try await audit.finish(id, status: status, details: details)
        } catch {
            // The attempt is recorded; only its outcome is missing.
            logger.error("audit outcome not written", ["audit.kind": action.kind, "audit.id": String(id), "error": String(describing: error)])
        }
    }
}

/// A member as the admin sees it: the member-service's detail and the issuer's sessions.
public struct MemberView: Sendable, Equatable {
    /// Profile, status, suspension, identities.
    public var detail: AdminMemberDetail
    /// Sessions, newest first, live and ended.
    public var sessions: [AdminSession]

    /// Creates a view.
    public init(detail: AdminMemberDetail, sessions: [AdminSession]) {
        self.detail = detail
        self.sessions = sessions
    }
}

/// Everything held about a member, for an access request.
public struct MemberExport: Sendable, Equatable {
    /// When it was put together.
    public var exportedAt: Date
    /// The member and its sessions.
    public var member: MemberView
    /// Its audit records, newest first.
    public var audit: [StoredAuditRecord]
}
