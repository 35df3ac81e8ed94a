import Contracts
import Foundation
import Postgres

/// Members and their linked identities in the `member` schema.
struct MemberStore: Sendable {
    let database: PostgresClient

    /// Finds the member of `request.identity`, or creates one; exactly one concurrent caller creates.
    func login(_ request: MemberLoginRequest) async throws -> MemberLoginReply {
        let identity = request.identity
        let rows = try await database.query(
            "SELECT member_id, created FROM member.login($1, $2, $3, $4, $5, $6, $7, $8)",
            [
                .text(identity.provider.rawValue), .text(identity.subject),
                .optionalText(identity.email ?? request.email), .optionalBool(identity.emailVerified),
                .optionalBool(identity.isPrivateEmail), .optionalText(identity.name ?? request.name),
                .optionalText(request.timezone), .optionalText(request.locale),
            ])
        guard let row = rows.first else { throw ServiceFailure.internal }
        return MemberLoginReply(memberId: try row.int("member_id"), isExistingMember: !(try row.bool("created")))
    }

    /// The member's profile with its identities, or nil when there is no such member.
    func profile(memberId: Int64) async throws -> MemberProfile? {
        let members = try await database.query(
            "SELECT id, email, name, created_at FROM member.members WHERE id = $1", [.int(memberId)])
        guard let member = members.first else { return nil }
        let identities = try await database.query(
            "SELECT provider, email, linked_at FROM member.identities WHERE member_id = $1 ORDER BY linked_at, provider",
            [.int(memberId)])
        return MemberProfile(
            memberId: try member.int("id"),
            email: try member.optionalString("email"),
            name: try member.optionalString("name"),
            identities: try identities.compactMap { row in
                guard let provider = Provider(rawValue: try row.string("provider")) else { return nil }
                return LinkedIdentity(provider: provider, email: try row.optionalString("email"), linkedAt: try row.date("linked_at"))
            },
            createdAt: try member.date("created_at"))
    }
}
