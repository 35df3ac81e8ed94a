import Contracts
import Foundation
import Postgres
import Persistence
import Runtime

/// Members and their linked identities in the `member` schema (``MemberRepository``). Every change writes its
/// events to the outbox in the same transaction and wakes the relay after commit.
struct MemberStore: MemberRepository {
    let database: PostgresClient
    let outbox: Wakeup

    /// Finds the member of `request.identity`, or creates one; exactly one concurrent caller creates.
    /// The login's events (`member.created`, `member.logged-in`, `member.updated`) go to the outbox in
    /// the same call. The request comes cleaned (``ProviderDetails``).
    func login(_ request: MemberLoginRequest) async throws -> MemberLoginReply {
        let identity = request.identity
        let rows = try await retryingConflicts {
            try await database.query(
                """
                SELECT member_id, created FROM member.login(
                    p_provider => \(identity.provider.rawValue), p_subject => \(identity.subject),
                    p_email => \(identity.email), p_email_verified => \(identity.emailVerified),
                    p_private_email => \(identity.isPrivateEmail), p_name => \(identity.name),
                    p_app_email => \(request.email), p_app_name => \(request.name),
                    p_sealed_credential => \(identity.sealedCredential),
                    p_timezone => \(request.timezone), p_locale => \(request.locale), p_picture => \(identity.pictureUrl))
                """)
        }
        outbox.signal()
        guard let row = rows.first else { throw ServiceFailure.internal }
        return MemberLoginReply(memberId: try row.int("member_id"), isExistingMember: !(try row.bool("created")))
    }

    /// The member with its identities, or nil when there is no such member.
    func member(_ memberId: Int64) async throws -> MemberRecord? {
        // One round trip: the member's columns repeat on each of its identity rows.
        let rows = try await database.query("""
            SELECT m.id, m.email, m.name, m.picture_url, m.timezone, m.locale, m.created_at, i.provider, i.email AS identity_email, i.email_verified, i.linked_at
              FROM member.members m
              LEFT JOIN member.identities i ON i.member_id = m.id
             WHERE m.id = \(memberId)
             ORDER BY i.linked_at, i.provider
            """)
        guard let member = rows.first else { return nil }
        let identities = try rows.compactMap { row -> LinkedIdentity? in
            guard !row.isNull("provider"), let provider = Provider(rawValue: try row.string("provider")) else { return nil }
            return LinkedIdentity(provider: provider, email: try row.optionalString("identity_email"),
                                  emailVerified: try row.bool("email_verified"), linkedAt: try row.date("linked_at"))
        }
        return MemberRecord(memberId: try member.int("id"), email: try member.optionalString("email"),
                            name: try member.optionalString("name"), pictureUrl: try member.optionalString("picture_url"),
                            timezone: try member.optionalString("timezone"), locale: try member.optionalString("locale"),
                            identities: identities, createdAt: try member.date("created_at"))
    }

    /// Runs `body` in a transaction whose events the relay publishes after commit. Changes of one
    /// member lock its `members` row first, so they run one at a time.
    func change<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let value = try await retryingConflicts { try await database.withTransaction(body) }
        outbox.signal()
        return value
    }

    /// Locks the member's row for this transaction and returns its email, name and picture; nil when there is no such member.
    static func lockMember(_ memberId: Int64, on connection: PostgresConnection) async throws -> MemberDetails? {
        let rows = try await connection.query("SELECT email, name, picture_url FROM member.members WHERE id = \(memberId) FOR UPDATE")
        guard let row = rows.first else { return nil }
        return MemberDetails(email: try row.optionalString("email"), name: try row.optionalString("name"),
                             picture: try row.optionalString("picture_url"))
    }

    /// Runs `body` again (up to three times in all) when PostgreSQL aborted it for a deadlock or a
    /// serialization failure: a login locks identity then member, a change member then identities.
    private func retryingConflicts<T>(_ body: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch let error as PostgresError where attempt < 3 && ["40P01", "40001"].contains(error.sqlState ?? "") {
                attempt += 1
            }
        }
    }
}
