import Contracts
import Postgres

extension MemberStore {
    /// Sets the fields `request` carries (checked by ``ProfileRules`` already; the locale in its usual
    /// case) and announces those that changed with `member.updated`; nothing is written when none did.
    func update(_ request: MemberUpdateRequest) async throws -> MemberProfile {
        let locale = request.locale.map(ProfileRules.canonicalCase)
        try await change { connection in
            let rows = try await connection.query(
                "SELECT name, timezone, locale FROM member.members WHERE id = \(request.memberId) FOR UPDATE")
            guard let row = rows.first else { throw ServiceFailure.memberGone }
            let current = (name: try row.optionalString("name"), timezone: try row.optionalString("timezone"),
                           locale: try row.optionalString("locale"))
            let name = request.name ?? current.name
            let timezone = request.timezone ?? current.timezone
            let locale = locale ?? current.locale
            let fields = [("locale", locale != current.locale), ("name", name != current.name), ("timezone", timezone != current.timezone)]
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
