import Contracts
import Foundation
import Postgres

extension MemberStore {
    /// Records `nonce` as used, in one statement of its own: a later failure of the login or link leaves it
    /// used. `INVALID_PROVIDER_TOKEN` (`nonceUsed`) when it was used before, by this call's twin too.
    func use(_ nonce: UsedNonce) async throws {
        let rows = try await database.query(
            """
            INSERT INTO member.used_nonces (id, expires_at) VALUES (\(nonce.id), to_timestamp(\(nonce.expiresAt)))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """)
        guard !rows.isEmpty else {
            throw ServiceFailure(.invalidProviderToken, "This nonce was used already: ask for a new one.", reason: NonceRefusal.used)
        }
    }

    /// Forgets the used nonces that have expired (a nonce past its expiry is refused before it gets here);
    /// returns how many.
    func forgetExpiredNonces(batchSize: Int = 10_000) async throws -> Int {
        let rows = try await database.query(
            """
            DELETE FROM member.used_nonces WHERE id IN (
                SELECT id FROM member.used_nonces WHERE expires_at < now() LIMIT \(batchSize)) RETURNING id
            """)
        return rows.count
    }
}
