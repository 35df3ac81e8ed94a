import Contracts
import Postgres

extension MemberStore {
    /// Deletes the member, its personal data and identities, and writes `member.deleted` with the
    /// grants to revoke (and the admin who deleted it, if one did), all in one transaction. False when
    /// the member was already gone.
    func delete(memberId: Int64, reason: String, actor: AdminActor?) async throws -> Bool {
        try await change { connection in
            try await Self.delete(memberId: memberId, reason: reason, actor: actor, on: connection)
        }
    }

    /// The deletion inside a caller's transaction. `keepingGrantsOf` names a provider whose grant
    /// is already over (Apple, after `consent-revoked`), so nobody tries to revoke it.
    static func delete(memberId: Int64, reason: String, actor: AdminActor? = nil, keepingGrantsOf ended: Provider? = nil,
                       on connection: PostgresConnection) async throws -> Bool {
        guard try await lockMember(memberId, on: connection) != nil else { return false }
        let identities = try await connection.query(
            "SELECT provider, provider_user_id, sealed_credential FROM member.identities WHERE member_id = \(memberId) FOR UPDATE")
        let grants: [ProviderGrant] = try identities.compactMap { row in
            guard let provider = Provider(rawValue: try row.string("provider")), provider != ended,
                  let sealed = try row.optionalString("sealed_credential") else { return nil }
            return ProviderGrant(provider: provider, subject: try row.string("provider_user_id"), sealedCredential: sealed)
        }
        // The identities go with the member (ON DELETE CASCADE).
        _ = try await connection.query("DELETE FROM member.members WHERE id = \(memberId)")
        try await OutboxEvent(Events.memberDeleted, MemberDeleted(memberId: memberId, grants: grants, reason: reason, actor: actor))
            .write(on: connection)
        return true
    }
}
