import Contracts
import Foundation
import Postgres
import Testing
import TestSupport
@testable import TokenIssuer

/// A login and a suspension of the same member take the member's lock in turn (`issuer.open_session` shared,
/// `issuer.apply_member_suspension` exclusive): a session starts either before the suspension, which ends it,
/// or after, and is refused. One test at a time, on a database of their own: each holds a transaction open
/// while another statement waits, and looks at the waiting one, which takes three of the pool's connections.
@Suite("Suspension races with logins", .serialized)
struct SuspensionRaceTests {
    static let store = Task {
        let database = try await SchemaDatabase.fresh(.tokenIssuer, schema: IssuerMigrations.schema,
                                                      migrations: IssuerMigrations.all, functions: IssuerMigrations.functions)
        return SessionStore(database: database, refreshTokenTTL: .seconds(3_600), reuseGrace: .seconds(30))
    }

    static func member() -> Int64 { Int64.random(in: 1...Int64(Int32.max)) }

    @Test("a suspension ends the member's sessions, announced in the outbox; a login waiting on the member's lock while it commits is refused")
    func suspensionRace() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        let before = try await store.startSession(memberId: member, deviceId: "before", provider: .google).id
        let login = try await store.database.withTransaction { connection in
            let rows = try await connection.query(
                """
                SELECT session_id FROM issuer.apply_member_suspension(p_member => \(member), p_suspended => true, p_generation => 1,
                                                                      p_window_seconds => 900)
                """)
            #expect(try rows.map { try $0.uuid("session_id").uuidString.lowercased() } == [before])
            // A login that found the member before the suspension asks for its session now: it waits for the lock.
            let login = Task { await failure { _ = try await store.startSession(memberId: member, deviceId: "during", provider: .google) } }
            try await waitUntil(timeout: .seconds(10), "the login did not wait for the suspension's lock") {
                try await lockWaiters(store.database, running: "open_session", advisory: true) > 0
            }
            return login
        }
        #expect(await login.value == ServiceFailure.memberSuspended)
        #expect(try await store.sessions(memberId: member).isEmpty)
        #expect(try await SessionStoreTests.events(store, before) == ["session.ended suspended"])
    }

    @Test("a login that holds the member's lock first is ended by the suspension that waited for it")
    func suspensionAfterLogin() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        let (sessionId, suspension) = try await store.database.withTransaction { connection in
            let rows = try await connection.query(
                """
                SELECT issuer.start_session(p_member => \(member), p_device => 'phone', p_provider => 'GOOGLE', p_token_hash => NULL,
                                            p_ttl_seconds => 3600, p_platform => 'iOS 18.1', p_app_version => 'MyApp 2.3.1',
                                            p_session => \(UUID())) AS id
                """)
            let suspension = Task {
                try await store.applySuspension(memberId: member, suspended: true, generation: 1, within: .seconds(900))
            }
            try await waitUntil(timeout: .seconds(10), "the suspension did not wait for the login's lock") {
                try await lockWaiters(store.database, running: "apply_member_suspension", advisory: true) > 0
            }
            return (try #require(rows.first).uuid("id").uuidString.lowercased(), suspension)
        }
        let change = try await suspension.value
        #expect(change == SuspensionChange(applied: true, suspended: true, sessionIds: [sessionId]))
        #expect(try await store.adminSessions(memberId: member, limit: 5).map { [$0.platform, $0.appVersion, $0.endReason] }
                == [["iOS 18.1", "MyApp 2.3.1", "suspended"]])
    }

}
