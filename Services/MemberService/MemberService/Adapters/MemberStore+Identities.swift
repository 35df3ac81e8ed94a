import Contracts
import Postgres

extension MemberStore {
    /// Links a verified identity to the member: idempotent when it is already the member's,
    /// `IDENTITY_IN_USE` when it is another member's or the member has another of that provider,
    /// `MEMBER_SUSPENDED` when the member is suspended.
    func link(_ request: LinkIdentityRequest) async throws {
        let identity = request.identity
        let picture = identity.pictureUrl
        try await change { connection in
            guard let member = try await Self.lockMember(request.memberId, refusingSuspended: true, on: connection) else {
                throw ServiceFailure.memberGone
            }
            let owner = try await connection.query(
                """
                SELECT member_id FROM member.identities
                 WHERE provider = \(identity.provider.rawValue) AND provider_user_id = \(identity.subject) FOR UPDATE
                """)
            if let row = owner.first {
                guard try row.int("member_id") == request.memberId else { throw ServiceFailure.identityInUse }
                // Linked already: keep what the provider asserts now, by login's rules (SQL/functions.sql).
                _ = try await connection.query("""
                    UPDATE member.identities AS i
                       SET email = member.identity_email(\(identity.email), i.email, \(request.email)),
                           email_verified = member.identity_email_verified(\(identity.email), \(identity.emailVerified),
                                                                           i.email, i.email_verified),
                           name = member.identity_name(\(identity.name), \(request.name), i.name),
                           is_private_email = COALESCE(\(identity.isPrivateEmail), i.is_private_email),
                           sealed_credential = COALESCE(\(identity.sealedCredential), i.sealed_credential),
                           picture_url = COALESCE(\(picture), i.picture_url)
                     WHERE i.provider = \(identity.provider.rawValue) AND i.provider_user_id = \(identity.subject)
                    """)
                return
            }
            let sameProvider = try await connection.query(
                "SELECT 1 FROM member.identities WHERE member_id = \(request.memberId) AND provider = \(identity.provider.rawValue)")
            guard sameProvider.isEmpty else { throw ServiceFailure.providerLinked(identity.provider) }
            let linked: PostgresRows
            do {
                linked = try await connection.query("""
                    INSERT INTO member.identities
                           (provider, provider_user_id, email, email_verified, is_private_email, name, sealed_credential, picture_url,
                            member_id)
                    VALUES (\(identity.provider.rawValue), \(identity.subject),
                            member.identity_email(\(identity.email), NULL, \(request.email)),
                            member.identity_email_verified(\(identity.email), \(identity.emailVerified), NULL, NULL),
                            \(identity.isPrivateEmail), member.identity_name(\(identity.name), \(request.name), NULL),
                            \(identity.sealedCredential), \(picture), \(request.memberId))
                    RETURNING email, name, picture_url
                    """)
            } catch let error as PostgresError where error.isUniqueViolation {
                // A first login of the same identity created another member meanwhile.
                throw ServiceFailure.identityInUse
            }
            let identityDetails = MemberDetails(email: try linked.first?.optionalString("email"),
                                                name: try linked.first?.optionalString("name"),
                                                picture: try linked.first?.optionalString("picture_url"))
            if let filled = member.fillingGaps(from: identityDetails) {
                _ = try await connection.query("""
                    UPDATE member.members SET email = \(filled.email), name = \(filled.name), picture_url = \(filled.picture),
                           updated_at = now()
                     WHERE id = \(request.memberId)
                    """)
                try await OutboxEvent(Events.memberUpdated, MemberUpdated(memberId: request.memberId, fields: member.changedFields(to: filled),
                                                                          source: "link"))
                    .write(on: connection)
            }
            try await OutboxEvent(Events.identityLinked, IdentityLinked(memberId: request.memberId, provider: identity.provider))
                .write(on: connection)
        }
    }

    /// Unlinks the member's identity of `request.provider`; `NOT_FOUND` when there is none,
    /// `LAST_IDENTITY` when it is the only one, `MEMBER_SUSPENDED` when the member is suspended.
    func unlink(_ request: UnlinkIdentityRequest) async throws {
        try await change { connection in
            guard try await Self.lockMember(request.memberId, refusingSuspended: true, on: connection) != nil else {
                throw ServiceFailure.memberGone
            }
            let providers = try await connection.query(
                "SELECT provider FROM member.identities WHERE member_id = \(request.memberId) FOR UPDATE"
            ).map { try $0.string("provider") }
            guard providers.contains(request.provider.rawValue) else { throw ServiceFailure.notLinked(request.provider) }
            guard providers.count > 1 else { throw ServiceFailure.lastIdentity }
            _ = try await connection.query(
                "DELETE FROM member.identities WHERE member_id = \(request.memberId) AND provider = \(request.provider.rawValue)")
            try await OutboxEvent(Events.identityUnlinked,
                                  IdentityUnlinked(memberId: request.memberId, provider: request.provider, reason: "requested"))
                .write(on: connection)
        }
    }
}
