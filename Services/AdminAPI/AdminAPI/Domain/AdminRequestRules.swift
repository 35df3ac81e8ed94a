import Contracts
import Rules

/// The checks of what an admin sends, before anything is asked or recorded as done: each failure is a 400
/// that names the field.
public enum AdminRequestRules {
    /// The most records one page of `GET /admin/members/{id}/audit` holds, and how many without `limit`.
    public static let pageLimits = (default: 50, max: 500)

    /// A path's member or record ID: a decimal number from 1; anything else names no member (404).
    public static func memberId(_ text: String) throws(ServiceFailure) -> Int64 {
        guard text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let id = Int64(text), id > 0 else {
            throw ServiceFailure(.notFound, "No such member.")
        }
        return id
    }

    /// A change's reason: required, not blank, at most ``FieldLimits/adminReason`` bytes, no control characters.
    public static func reason(_ reason: String?) throws(ServiceFailure) -> String {
        guard let reason else { throw ServiceFailure.invalidRequest("reason is required.") }
        try Field.required(reason, "reason", maxBytes: FieldLimits.adminReason)
        return reason
    }

    /// `limit` of an audit page: 1 to 500, 50 when absent.
    public static func limit(_ text: String?) throws(ServiceFailure) -> Int {
        guard let text else { return pageLimits.default }
        guard text.utf8.count <= 4, let limit = Int(text), (1...pageLimits.max).contains(limit) else {
            throw ServiceFailure.invalidRequest("limit must be a whole number from 1 to \(pageLimits.max).")
        }
        return limit
    }

    /// `before` of an audit page: a record ID from 1 (the `next` of the page before).
    public static func before(_ text: String?) throws(ServiceFailure) -> Int64? {
        guard let text else { return nil }
        guard text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let before = Int64(text), before > 0 else {
            throw ServiceFailure.invalidRequest("before must be a record ID (a whole number from 1), the next of the page before.")
        }
        return before
    }

    /// A search: by identity (`provider` and `subject`) or by `email`, one of the two.
    public static func search(provider: String?, subject: String?, email: String?) throws(ServiceFailure) -> MemberSearch {
        switch (provider, subject, email) {
        case (let provider?, let subject?, nil):
            // Spelt as in the public API's paths (`google`) or as the contracts' (`GOOGLE`).
            guard provider.utf8.count <= FieldLimits.providerName, let known = Provider(rawValue: provider.uppercased()) else {
                throw ServiceFailure.invalidRequest("provider must be one of \(Provider.allCases.map { $0.rawValue.lowercased() }.joined(separator: ", ")).")
            }
            try Field.required(subject, "subject", maxBytes: FieldLimits.subject)
            return .identity(known, subject: subject)
        case (nil, nil, let email?):
            try Field.required(email, "email", maxBytes: FieldLimits.email)
            return .email(email)
        default:
            throw ServiceFailure.invalidRequest("Search by provider and subject, or by email: one of the two.")
        }
    }
}

/// What a member search looks for.
public enum MemberSearch: Sendable, Equatable {
    /// The member of an identity.
    case identity(Provider, subject: String)
    /// The members with an email.
    case email(String)

    /// What the trail keeps of the search: its kind and provider, never the subject or the email.
    public var auditName: String {
        switch self {
        case .identity: "identity"
        case .email: "email"
        }
    }
}
