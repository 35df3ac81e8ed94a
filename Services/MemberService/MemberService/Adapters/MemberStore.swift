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

    /// The SQLSTATE `member.login` raises for a suspended member's login (SQL/functions.sql).
    static let memberSuspendedState = "MS001"

    /// Finds the member of `request.identity`, or creates one; exactly one concurrent caller creates.
    /// The login's events (`member.created`, `member.logged-in` with the device and client,
    /// `member.updated`) go to the outbox in the same call. A suspended member's login writes nothing and
    /// is `MEMBER_SUSPENDED`. The request comes cleaned (``ProviderDetails``). Its server nonce is recorded as
    /// used in the same statement, first (one round trip): `INVALID_PROVIDER_TOKEN` (`nonceUsed`) when it was
    /// used before; a login that fails after it rolled it back, so it is recorded again on its own. A second attempt
    /// of one login (its `attemptKey` and device, within two minutes) gets the first's answer and writes no event (only
    /// Apple's grant, if it holds one); a third is a login again.
    func login(_ request: MemberLoginRequest) async throws -> MemberLoginReply {
        do {
            return try await loginStatement(request)
        } catch let error as PostgresError where error.sqlState == Self.nonceUsedState {
            throw Self.nonceUsed
        } catch {
            // Whatever the login came to, its nonce is spent (a connection that is down spends nothing, and
            // nothing else happened either).
            if let nonce = request.nonce { try? await use(nonce) }
            if let error = error as? PostgresError, error.sqlState == Self.memberSuspendedState { throw ServiceFailure.memberSuspended }
            throw error
        }
    }

    private func loginStatement(_ request: MemberLoginRequest) async throws -> MemberLoginReply {
        let identity = request.identity
        let client = request.client
        let rows = try await retryingConflicts {
            try await database.query(
                """
                SELECT member_id, created FROM member.login(
                    p_provider => \(identity.provider.rawValue), p_subject => \(identity.subject),
                    p_email => \(identity.email), p_email_verified => \(identity.emailVerified),
                    p_private_email => \(identity.isPrivateEmail), p_name => \(identity.name),
                    p_app_email => \(request.email), p_app_name => \(request.name),
                    p_sealed_credential => \(identity.sealedCredential),
                    p_timezone => \(request.timezone), p_locale => \(request.locale), p_picture => \(identity.pictureUrl),
                    p_device_id => \(request.deviceId), p_client_address => \(client?.address),
                    p_platform => \(client?.platform), p_app_version => \(client?.appVersion),
                    p_nonce => \(request.nonce?.id), p_nonce_expires_at => \(request.nonce?.expiresAt),
                    p_attempt_key => \(request.attemptKey))
                """)
        }
        outbox.signal()
        guard let row = rows.first else { throw ServiceFailure.internal }
        return MemberLoginReply(memberId: try row.int("member_id"), isExistingMember: !(try row.bool("created")))
    }

    /// The member with its identities and suspension, or nil when there is no such member.
    func member(_ memberId: Int64) async throws -> MemberRecord? {
        // One round trip: the member's columns repeat on each of its identity rows.
        let rows = try await database.query("""
            SELECT m.id, m.email, m.name, m.picture_url, m.timezone, m.locale, m.created_at,
                   m.suspended_at, m.suspended_by, m.suspension_reason,
                   i.provider, i.email AS identity_email, i.email_verified, i.linked_at
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
        return try Self.record(member, identities: identities)
    }

    /// The member of `row` (its `members` columns, the suspension's among them) with `identities`.
    static func record(_ row: PostgresRow, identities: [LinkedIdentity]) throws -> MemberRecord {
        MemberRecord(memberId: try row.int("id"), email: try row.optionalString("email"),
                     name: try row.optionalString("name"), pictureUrl: try row.optionalString("picture_url"),
                     timezone: try row.optionalString("timezone"), locale: try row.optionalString("locale"),
                     identities: identities, createdAt: try row.date("created_at"), suspension: try suspension(row))
    }

    /// The suspension of a `members` row (`suspended_at`, `suspended_by`, `suspension_reason`), nil when none.
    static func suspension(_ row: PostgresRow) throws -> Suspension? {
        guard let since = try row.optionalDate("suspended_at") else { return nil }
        return Suspension(since: since, admin: try row.optionalString("suspended_by") ?? "",
                          reason: try row.optionalString("suspension_reason") ?? "")
    }

    /// Runs `body` in a transaction whose events the relay publishes after commit. Changes of one
    /// member lock its `members` row first, so they run one at a time.
    func change<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let value = try await retryingConflicts { try await database.withTransaction(body) }
        outbox.signal()
        return value
    }

    /// Locks the member's row for this transaction and returns its email, name and picture; nil when there is no such
    /// member. `refusingSuspended`: a suspended member is `MEMBER_SUSPENDED` (the changes a member asks for).
    static func lockMember(_ memberId: Int64, refusingSuspended: Bool = false,
                           on connection: PostgresConnection) async throws -> MemberDetails? {
        let rows = try await connection.query("""
            SELECT email, name, picture_url, suspended_at IS NOT NULL AS suspended FROM member.members WHERE id = \(memberId) FOR UPDATE
            """)
        guard let row = rows.first else { return nil }
        if refusingSuspended, try row.bool("suspended") { throw ServiceFailure.memberSuspended }
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
