import Contracts
import Foundation
import Postgres

extension MemberStore {
    /// Records `nonce` as used, in one statement of its own, before the link it came with (a login records its
    /// own, in its statement: ``login(_:)``): a later failure leaves it used, so a captured token and nonce are
    /// never good for a second try. `INVALID_PROVIDER_TOKEN` (`nonceUsed`) when it was used before, by this call's
    /// twin too.
    func use(_ nonce: UsedNonce) async throws {
        let rows = try await database.query("SELECT member.use_nonce(\(nonce.id), \(nonce.expiresAt)) AS used")
        guard try rows.first?.bool("used") == true else { throw Self.nonceUsed }
    }

    /// The answer to a nonce used before.
    static let nonceUsed = ServiceFailure(.invalidProviderToken, "This nonce was used already: ask for a new one.", reason: NonceRefusal.used)

    /// The SQLSTATE `member.login` raises for a nonce used before (SQL/functions.sql).
    static let nonceUsedState = "MN001"

    /// How long after its expiry a used nonce is kept: a verifier whose clock runs behind the database's
    /// still takes the nonce for that long, so the verifiers' clocks must be within this of the database's.
    static let keptPastExpiry: Duration = .seconds(900)

    /// Forgets the used nonces that expired more than ``keptPastExpiry`` ago, batch by batch until none is
    /// left (rows other replicas are deleting are skipped); returns how many.
    func forgetExpiredNonces(batchSize: Int = 10_000) async throws -> Int {
        var forgotten = 0
        while true {
            let rows = try await database.query(
                """
                WITH expired AS (
                    SELECT id FROM member.used_nonces
                     WHERE expires_at < now() - make_interval(secs => \(Self.keptPastExpiry.components.seconds))
                     LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
                DELETE FROM member.used_nonces u USING expired WHERE u.id = expired.id RETURNING u.id
                """)
            forgotten += rows.count
            guard rows.count == batchSize, !Task.isCancelled else { return forgotten }
        }
    }
}
