import Contracts
import Postgres

extension MemberStore {
    /// The members `search` finds, lowest ID first, at most `limit`: by identity through the identities'
    /// primary key; by email through the `lower(email)` indexes of members and identities.
    func find(_ search: MemberSearch, limit: Int) async throws -> [AdminMemberSummary] {
        let columns = """
            m.id, m.email, m.name, m.created_at, m.suspended_at IS NOT NULL AS suspended,
            (SELECT string_agg(j.provider, ',' ORDER BY j.linked_at, j.provider) FROM member.identities j
              WHERE j.member_id = m.id) AS providers
            """
        let rows: PostgresRows
        switch search {
        case .identity(let provider, let subject):
            rows = try await database.query("""
                SELECT \(unescaped: columns)
                  FROM member.identities i JOIN member.members m ON m.id = i.member_id
                 WHERE i.provider = \(provider.rawValue) AND i.provider_user_id = \(subject)
                """)
        case .email(let email):
            rows = try await database.query("""
                WITH found AS (SELECT id FROM member.members WHERE lower(email) = lower(\(email))
                               UNION
                               SELECT member_id FROM member.identities WHERE lower(email) = lower(\(email)))
                SELECT \(unescaped: columns)
                  FROM found JOIN member.members m ON m.id = found.id
                 ORDER BY m.id LIMIT \(limit)
                """)
        }
        return try rows.map { row in
            AdminMemberSummary(memberId: try row.int("id"), email: try row.optionalString("email"), name: try row.optionalString("name"),
                               status: try row.bool("suspended") ? .suspended : .active,
                               providers: (try row.optionalString("providers") ?? "").split(separator: ",")
                                   .compactMap { Provider(rawValue: String($0)) },
                               createdAt: try row.date("created_at"))
        }
    }

    /// The member with its suspension and what is stored of each identity (whether a grant is held, never
    /// the grant), in one round trip; nil when there is no such member.
    func dossier(_ memberId: Int64) async throws -> MemberDossier? {
        let rows = try await database.query("""
            SELECT m.id, m.email, m.name, m.picture_url, m.timezone, m.locale, m.created_at, m.updated_at,
                   m.suspended_at, m.suspended_by, m.suspension_reason,
                   i.provider, i.provider_user_id, i.email AS identity_email, i.email_verified, i.is_private_email,
                   i.name AS identity_name, i.picture_url AS identity_picture, i.linked_at, i.last_login_at,
                   i.sealed_credential IS NOT NULL AS holds_grant
              FROM member.members m
              LEFT JOIN member.identities i ON i.member_id = m.id
             WHERE m.id = \(memberId)
             ORDER BY i.linked_at, i.provider
            """)
        guard let member = rows.first else { return nil }
        var linked: [LinkedIdentity] = []
        var identities: [AdminIdentity] = []
        for row in rows {
            guard !row.isNull("provider"), let provider = Provider(rawValue: try row.string("provider")) else { continue }
            let email = try row.optionalString("identity_email")
            let verified = try row.bool("email_verified")
            let linkedAt = try row.date("linked_at")
            linked.append(LinkedIdentity(provider: provider, email: email, emailVerified: verified, linkedAt: linkedAt))
            identities.append(AdminIdentity(provider: provider, subject: try row.string("provider_user_id"), email: email,
                                            emailVerified: verified, isPrivateEmail: try row.optionalBool("is_private_email"),
                                            name: try row.optionalString("identity_name"),
                                            pictureUrl: try row.optionalString("identity_picture"), linkedAt: linkedAt,
                                            lastLoginAt: try row.optionalDate("last_login_at"), holdsGrant: try row.bool("holds_grant")))
        }
        return MemberDossier(record: try Self.record(member, identities: linked), identities: identities,
                             updatedAt: try member.date("updated_at"))
    }

    /// Suspends the member or lifts its suspension, with its generation and event, in one transaction; a
    /// member that has that status already changes nothing. Nil when there is no such member.
    ///
    /// The member's identities are locked after its row, as a deletion does: a login in flight holds its
    /// identity, so the suspension waits for it to commit, and a login that comes after waits for the
    /// suspension, then reads it (`member.login` in SQL/functions.sql).
    func setSuspension(memberId: Int64, suspended: Bool, admin: String, reason: String) async throws -> SuspensionChange? {
        try await change { connection -> SuspensionChange? in
            let rows = try await connection.query("""
                SELECT suspended_at IS NOT NULL AS suspended, suspension_generation FROM member.members WHERE id = \(memberId) FOR UPDATE
                """)
            guard let row = rows.first else { return nil }
            guard try row.bool("suspended") != suspended else {
                return SuspensionChange(changed: false, generation: try row.int("suspension_generation"))
            }
            _ = try await connection.query("SELECT 1 FROM member.identities WHERE member_id = \(memberId) FOR UPDATE")
            let updated = try await connection.query(suspended
                ? """
                  UPDATE member.members
                     SET suspended_at = now(), suspended_by = \(admin), suspension_reason = \(reason),
                         suspension_generation = suspension_generation + 1, updated_at = now()
                   WHERE id = \(memberId) RETURNING suspension_generation
                  """
                : """
                  UPDATE member.members
                     SET suspended_at = NULL, suspended_by = NULL, suspension_reason = NULL,
                         suspension_generation = suspension_generation + 1, updated_at = now()
                   WHERE id = \(memberId) RETURNING suspension_generation
                  """)
            guard let generation = try updated.first?.int("suspension_generation") else { throw ServiceFailure.internal }
            if suspended {
                try await OutboxEvent(Events.memberSuspended,
                                      MemberSuspended(memberId: memberId, admin: admin, reason: reason, generation: generation))
                    .write(on: connection)
            } else {
                try await OutboxEvent(Events.memberUnsuspended,
                                      MemberUnsuspended(memberId: memberId, admin: admin, reason: reason, generation: generation))
                    .write(on: connection)
            }
            return SuspensionChange(changed: true, generation: generation)
        }
    }
}
