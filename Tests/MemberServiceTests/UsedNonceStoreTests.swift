import Contracts
import Foundation
import Postgres
import Testing
@testable import MemberService

/// Server nonces at the member-service's store: spent in the login's transaction, good once, and forgotten
/// once expired (plus the verifiers' clock allowance), batch after batch.
@Suite("Member store: used server nonces", .serialized)
struct UsedNonceStoreTests {
    static let fixture = Task { try await MemberStoreFixture.make() }

    static func nonce(expiresIn seconds: Int64 = 600) -> UsedNonce {
        UsedNonce(id: UUID().uuidString, expiresAt: Int64(Date().timeIntervalSince1970) + seconds)
    }

    @Test("a login spends its nonce; the same nonce again is refused with nonceUsed and logs nobody in")
    func goodOnce() async throws {
        let fixture = try await Self.fixture.value
        let nonce = Self.nonce()
        let identity = MemberStoreFixture.identity()
        let first = try await fixture.store.login(MemberLoginRequest(identity: identity, deviceId: "d", nonce: nonce))
        do {
            _ = try await fixture.store.login(MemberLoginRequest(identity: MemberStoreFixture.identity(), deviceId: "d", nonce: nonce))
            Issue.record("a used nonce logged in")
        } catch let failure as ServiceFailure {
            #expect(failure.reason == NonceRefusal.used)
        }
        #expect(try await fixture.events(first.memberId) == ["member.created", "member.logged-in"])
    }

    @Test("expired nonces are forgotten only past the clock allowance, every batch of them")
    func sweep() async throws {
        let fixture = try await Self.fixture.value
        let past = Int64(Date().timeIntervalSince1970) - MemberStore.keptPastExpiry.components.seconds
        _ = try await fixture.database.query("""
            INSERT INTO member.used_nonces (id, expires_at)
            SELECT 'old-' || n, to_timestamp(\(past - 10)) FROM generate_series(1, 25) AS n
            UNION ALL SELECT 'recent-' || n, to_timestamp(\(past + 120)) FROM generate_series(1, 3) AS n
            """)
        #expect(try await fixture.store.forgetExpiredNonces(batchSize: 10) == 25)
        let left = try await fixture.database.query("SELECT count(*)::int8 AS n FROM member.used_nonces WHERE id LIKE 'old-%' OR id LIKE 'recent-%'")
        #expect(try left.first?.int("n") == 3)
    }
}
