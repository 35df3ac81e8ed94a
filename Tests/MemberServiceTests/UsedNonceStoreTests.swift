import Contracts
import Foundation
import Postgres
import Testing
@testable import MemberService

/// Server nonces at the member-service's store: good once, and forgotten
/// once expired (plus the verifiers' clock allowance), batch after batch.
@Suite("Member store: used server nonces", .serialized)
struct UsedNonceStoreTests {
    static let fixture = Task { try await MemberStoreFixture.make() }

    static func nonce(expiresIn seconds: Int64 = 600) -> UsedNonce {
        UsedNonce(id: UUID().uuidString, expiresAt: Int64(Date().timeIntervalSince1970) + seconds)
    }

    @Test("a nonce is used once; the second use is refused with nonceUsed, also when eight race")
    func goodOnce() async throws {
        let fixture = try await Self.fixture.value
        let nonce = Self.nonce()
        try await fixture.store.use(nonce)
        do {
            try await fixture.store.use(nonce)
            Issue.record("a used nonce was taken again")
        } catch let failure as ServiceFailure {
            #expect(failure.reason == NonceRefusal.used)
        }
        let racing = Self.nonce()
        let taken = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { (try? await fixture.store.use(racing)) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(taken == 1)
    }

    @Test("eight logins racing with one nonce: one signs in, seven are refused with nonceUsed")
    func loginsRacing() async throws {
        let fixture = try await Self.fixture.value
        let nonce = Self.nonce()
        let identity = MemberStoreFixture.identity()
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do {
                        _ = try await fixture.store.login(MemberLoginRequest(identity: identity, deviceId: "d", nonce: nonce))
                        return "signed in"
                    } catch let failure as ServiceFailure {
                        return failure.reason ?? failure.code.rawValue
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.sorted() == Array(repeating: NonceRefusal.used, count: 7) + ["signed in"])
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
