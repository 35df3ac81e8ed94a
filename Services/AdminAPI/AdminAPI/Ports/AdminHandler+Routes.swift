import Contracts
import Foundation
import HTTPAPI
import HTTPServer
import JSON

extension AdminHandler {
    /// Every route of the admin port (`Resources/openapi.json` describes each).
    static let routes: [Route] = [
        Route("GET", "/admin/openapi.json") { _, _ in openAPI },
        Route("GET", "/admin/members") { handler, context throws(ServiceFailure) in
            let search = try AdminRequestRules.search(provider: context.query("provider"), subject: context.query("subject"),
                                                      email: context.query("email"))
            let members = try await handler.actions.search(search, by: context.caller)
            return .data(MembersBody(members: members))
        },
        Route("GET", "/admin/members/{id}") { handler, context throws(ServiceFailure) in
            let view = try await handler.actions.member(try AdminRequestRules.memberId(context.parameter("id")), by: context.caller)
            return .data(MemberBody(view))
        },
        Route("DELETE", "/admin/members/{id}") { handler, context throws(ServiceFailure) in
            let memberId = try AdminRequestRules.memberId(context.parameter("id"))
            let reason = try AdminRequestRules.reason(try RequestBody.decode(ReasonBody.self, from: context.request).reason)
            try await handler.actions.delete(memberId, reason: reason, by: context.caller)
            return .noContent
        },
        Route("POST", "/admin/members/{id}/suspend") { handler, context throws(ServiceFailure) in
            let memberId = try AdminRequestRules.memberId(context.parameter("id"))
            let reason = try AdminRequestRules.reason(try RequestBody.decode(ReasonBody.self, from: context.request).reason)
            return .data(SuspensionBody(try await handler.actions.suspend(memberId, reason: reason, by: context.caller)))
        },
        Route("POST", "/admin/members/{id}/unsuspend") { handler, context throws(ServiceFailure) in
            let memberId = try AdminRequestRules.memberId(context.parameter("id"))
            let reason = try AdminRequestRules.reason(try RequestBody.decode(ReasonBody.self, from: context.request).reason)
            return .data(SuspensionBody(try await handler.actions.unsuspend(memberId, reason: reason, by: context.caller)))
        },
        Route("GET", "/admin/members/{id}/audit") { handler, context throws(ServiceFailure) in
            let memberId = try AdminRequestRules.memberId(context.parameter("id"))
            let limit = try AdminRequestRules.limit(context.query("limit"))
            let before = try AdminRequestRules.before(context.query("before"))
            let page = try await handler.actions.auditPage(memberId, before: before, limit: limit, by: context.caller)
            return .data(AuditPageBody(records: page.records.map(AuditRecordBody.init), next: page.next))
        },
        Route("GET", "/admin/members/{id}/export") { handler, context throws(ServiceFailure) in
            let memberId = try AdminRequestRules.memberId(context.parameter("id"))
            let export = try await handler.actions.export(memberId, maxRecords: handler.maxExportRecords, by: context.caller)
            return .data(ExportBody(exportedAt: export.exportedAt, member: MemberBody(export.member),
                                    audit: export.audit.map(AuditRecordBody.init)))
        },
        Route("DELETE", "/admin/sessions/{id}") { handler, context throws(ServiceFailure) in
            // Session IDs are UUIDs; anything else names no session.
            guard let uuid = UUID(uuidString: context.parameter("id")) else { throw ServiceFailure(.notFound, "No such session.") }
            // A change: ending someone's session needs a reason, as every admin change does (SPEC section 9).
            let reason = try AdminRequestRules.reason(try RequestBody.decode(ReasonBody.self, from: context.request).reason)
            try await handler.actions.endSession(uuid.uuidString.lowercased(), reason: reason, by: context.caller)
            return .noContent
        },
    ]

    /// `Resources/openapi.json`, read once.
    static let openAPI: HTTPResponse = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"), let body = try? Data(contentsOf: url) else {
            return .failure(ServiceFailure(.internal, "An internal error occurred."))
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(body))
    }()
}

/// A change's body: `{"reason": "..."}`.
struct ReasonBody: Decodable {
    var reason: String?
}

/// `GET /admin/members`.
struct MembersBody: Codable, Sendable {
    var members: [AdminMemberSummary]
}

/// A member's profile as the admin sees it.
struct ProfileBody: Codable, Sendable {
    var email: String?
    var emailVerified: Bool
    var name: String?
    var pictureUrl: String?
    var timezone: String?
    var locale: String?
    var createdAt: Date
}

/// `GET /admin/members/{id}`: profile, status, suspension, identities and sessions.
struct MemberBody: Codable, Sendable {
    var memberId: Int64
    var status: MemberStatus
    var suspension: Suspension?
    var profile: ProfileBody
    var identities: [AdminIdentity]
    var sessions: [AdminSession]
    var updatedAt: Date?

    init(_ view: MemberView) {
        let profile = view.detail.profile
        memberId = profile.memberId
        status = view.detail.status
        suspension = view.detail.suspension
        self.profile = ProfileBody(email: profile.email, emailVerified: profile.emailVerified, name: profile.name,
                                   pictureUrl: profile.pictureUrl, timezone: profile.timezone, locale: profile.locale,
                                   createdAt: profile.createdAt)
        identities = view.detail.identities
        sessions = view.sessions
        updatedAt = view.detail.updatedAt
    }
}

/// `POST /admin/members/{id}/suspend` and `/unsuspend`.
struct SuspensionBody: Codable, Sendable {
    var memberId: Int64
    var status: MemberStatus
    var changed: Bool
    var sessionsEnded: [String]

    init(_ reply: AdminSuspensionReply) {
        memberId = reply.memberId
        status = reply.status
        changed = reply.changed
        sessionsEnded = reply.sessionsEnded?.sessionIds ?? []
    }
}

/// One audit record.
struct AuditRecordBody: Codable, Sendable {
    var id: Int64
    var kind: String
    var occurredAt: Date
    var memberId: Int64?
    var admin: String?
    var reason: String?
    var details: [String: JSONValue]

    init(_ stored: StoredAuditRecord) {
        id = stored.id
        kind = stored.record.kind
        occurredAt = stored.record.occurredAt
        memberId = stored.record.memberId
        admin = stored.record.admin
        reason = stored.record.reason
        details = stored.record.details
    }
}

/// `GET /admin/members/{id}/audit`: a page, and the `before` of the next one (absent on the last page).
struct AuditPageBody: Codable, Sendable {
    var records: [AuditRecordBody]
    var next: Int64?
}

/// `GET /admin/members/{id}/export`.
struct ExportBody: Codable, Sendable {
    var exportedAt: Date
    var member: MemberBody
    var audit: [AuditRecordBody]
}
