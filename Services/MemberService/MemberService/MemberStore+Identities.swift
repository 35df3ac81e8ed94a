import Contracts
import Postgres

extension MemberStore {
    /// Links a verified identity to the member: idempotent when it is already the member's,
    /// `IDENTITY_IN_USE` when it is another member's or the member has another of that provider.
    func link(_ request: LinkIdentityRequest) async throws -> MemberProfile {
        let identity = request.identity
        let email = identity.email ?? request.email
        let name = identity.name ?? request.name
        try await change { connection in
            guard try await Self.lockMember(request.memberId, on: connection) else { throw ServiceFailure.memberGone }
            let owner = try await connection.query(
                "SELECT member_id FROM member.identities WHERE provider = $1 AND provider_user_id = $2 FOR UPDATE",
                [.text(identity.provider.rawValue), .text(identity.subject)])
            if let row = owner.first {
                guard try row.int("member_id") == request.memberId else { throw ServiceFailure.identityInUse }
                // Linked already: keep what the provider asserts now, as a login would.
                _ = try await connection.query("""
                    UPDATE member.identities
                       SET email = COALESCE($3, email, $4),
                           email_verified = CASE WHEN $3::text IS NOT NULL THEN COALESCE($5::boolean, FALSE)
                                                 WHEN email IS NOT NULL THEN email_verified ELSE FALSE END,
                           is_private_email = COALESCE($6, is_private_email), name = COALESCE($7, name),
                           sealed_credential = COALESCE($8, sealed_credential)
                     WHERE provider = $1 AND provider_user_id = $2
                    """, Self.identityParameters(identity, appEmail: request.email, name: name))
                return
            }
            let sameProvider = try await connection.query(
                "SELECT 1 FROM member.identities WHERE member_id = $1 AND provider = $2",
                [.int(request.memberId), .text(identity.provider.rawValue)])
            guard sameProvider.isEmpty else { throw ServiceFailure.providerLinked(identity.provider) }
            do {
                _ = try await connection.query("""
                    INSERT INTO member.identities
                           (provider, provider_user_id, email, email_verified, is_private_email, name, sealed_credential, member_id)
                    VALUES ($1, $2, COALESCE($3, $4), $3::text IS NOT NULL AND COALESCE($5::boolean, FALSE), $6, $7, $8, $9)
                    """, Self.identityParameters(identity, appEmail: request.email, name: name) + [.int(request.memberId)])
            } catch let error as PostgresError where error.isUniqueViolation {
                // A first login of the same identity created another member meanwhile.
                throw ServiceFailure.identityInUse
            }
            // The member's email and name fill gaps only; they never switch to the new identity's.
            _ = try await connection.query("""
                UPDATE member.members SET email = COALESCE(email, $2), name = COALESCE(name, $3), updated_at = now()
                 WHERE id = $1 AND ((email IS NULL AND $2::text IS NOT NULL) OR (name IS NULL AND $3::text IS NOT NULL))
                """, [.int(request.memberId), .optionalText(email), .optionalText(name)])
            try await OutboxEvent(Events.identityLinked, IdentityLinked(memberId: request.memberId, provider: identity.provider))
                .write(on: connection)
        }
        guard let profile = try await profile(memberId: request.memberId) else { throw ServiceFailure.memberGone }
        return profile
    }

    /// Unlinks the member's identity of `request.provider`; `NOT_FOUND` when there is none,
    /// `LAST_IDENTITY` when it is the only one.
    func unlink(_ request: UnlinkIdentityRequest) async throws -> MemberProfile {
        try await change { connection in
            guard try await Self.lockMember(request.memberId, on: connection) else { throw ServiceFailure.memberGone }
            let providers = try await connection.query(
                "SELECT provider FROM member.identities WHERE member_id = $1 FOR UPDATE", [.int(request.memberId)]
            ).map { try $0.string("provider") }
            guard providers.contains(request.provider.rawValue) else { throw ServiceFailure.notLinked(request.provider) }
            guard providers.count > 1 else { throw ServiceFailure.lastIdentity }
            _ = try await connection.query("DELETE FROM member.identities WHERE member_id = $1 AND provider = $2",
                                           [.int(request.memberId), .text(request.provider.rawValue)])
            try await OutboxEvent(Events.identityUnlinked,
                                  IdentityUnlinked(memberId: request.memberId, provider: request.provider, reason: "requested"))
                .write(on: connection)
        }
        guard let profile = try await profile(memberId: request.memberId) else { throw ServiceFailure.memberGone }
        return profile
    }

    /// `$1` provider, `$2` subject, `$3` token email, `$4` app email, `$5` the token's email verified
    /// (about `$3` only: an app email is never verified), `$6` private email, `$7` name, `$8` sealed credential.
    private static func identityParameters(_ identity: VerifiedIdentity, appEmail: String?, name: String?) -> [PostgresValue] {
        [
            .text(identity.provider.rawValue), .text(identity.subject), .optionalText(identity.email),
            .optionalText(appEmail), .optionalBool(identity.emailVerified), .optionalBool(identity.isPrivateEmail),
            .optionalText(name), .optionalText(identity.sealedCredential),
        ]
    }
}
