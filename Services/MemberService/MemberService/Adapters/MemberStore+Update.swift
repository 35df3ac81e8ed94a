import Contracts
import Foundation
import Postgres

extension MemberStore {
    /// Sets the fields `request` carries (checked by ``ProfileRules`` already; the locale in its usual
    /// case) and announces those that changed with `member.updated`; nothing is written when none did.
    func update(_ request: MemberUpdateRequest) async throws -> MemberProfile {
        let locale = request.locale.map(ProfileRules.canonicalCase)
        let requestedName = request.name?.trimmingCharacters(in: .whitespaces)
        try await change { connection in
            let rows = try await connection.query(
                "SELECT name, timezone, locale FROM member.members WHERE id = \(request.memberId) FOR UPDATE")
            guard let row = rows.first else { throw ServiceFailure.memberGone }
            let current = (name: try row.optionalString("name"), timezone: try row.optionalString("timezone"),
                           locale: try row.optionalString("locale"))
            let name = requestedName ?? current.name
            let timezone = request.timezone ?? current.timezone
            let locale = locale ?? current.locale
            // Compared as bytes: Swift's == takes canonically equivalent strings (é and e + U+0301) for one.
            func differs(_ new: String?, _ old: String?) -> Bool { new.map { Array($0.utf8) } != old.map { Array($0.utf8) } }
            let fields = [("locale", differs(locale, current.locale)), ("name", differs(name, current.name)),
                          ("timezone", differs(timezone, current.timezone))]
                .filter(\.1).map(\.0)
            guard !fields.isEmpty else { return }
            _ = try await connection.query("""
                UPDATE member.members SET name = \(name), timezone = \(timezone), locale = \(locale), updated_at = now()
                 WHERE id = \(request.memberId)
                """)
            try await OutboxEvent(Events.memberUpdated, MemberUpdated(memberId: request.memberId, fields: fields, source: "request"))
                .write(on: connection)
        }
        guard let profile = try await profile(memberId: request.memberId) else { throw ServiceFailure.memberGone }
        return profile
    }
}
