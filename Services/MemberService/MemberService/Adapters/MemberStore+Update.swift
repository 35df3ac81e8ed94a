import Contracts
import Postgres

extension MemberStore {
    /// Sets the fields `request` carries (checked by ``ProfileRules`` already) on the member's locked row, by
    /// ``ProfileUpdate``, and announces those that changed with `member.updated`; nothing is written when none did,
    /// nor for a suspended member (`MEMBER_SUSPENDED`).
    func update(_ request: MemberUpdateRequest) async throws {
        try await change { connection in
            let rows = try await connection.query("""
                SELECT name, timezone, locale, suspended_at IS NOT NULL AS suspended FROM member.members
                 WHERE id = \(request.memberId) FOR UPDATE
                """)
            guard let row = rows.first else { throw ServiceFailure.memberGone }
            if try row.bool("suspended") { throw ServiceFailure.memberSuspended }
            let current = ProfileUpdate(name: try row.optionalString("name"), timezone: try row.optionalString("timezone"),
                                        locale: try row.optionalString("locale"))
            let (new, fields) = current.applying(request)
            guard !fields.isEmpty else { return }
            _ = try await connection.query("""
                UPDATE member.members SET name = \(new.name), timezone = \(new.timezone), locale = \(new.locale), updated_at = now()
                 WHERE id = \(request.memberId)
                """)
            try await OutboxEvent(Events.memberUpdated, MemberUpdated(memberId: request.memberId, fields: fields, source: "request"))
                .write(on: connection)
        }
    }
}
