import Foundation
import Logging
import Postgres
import Testing
import TestSupport
@testable import TokenIssuer

/// The periodic clean-up deletes expired sessions, sessions ended long enough ago and expired
/// refresh tokens, in batches, and leaves live ones alone; one replica at a time. Each test on a
/// database of its own: a clean-up deletes every expired session of its database, whoever made it.
@Suite("Session clean-up")
struct SessionCleanUpTests {
    /// Runs `body` with a client of a fresh database that has the issuer's schema, as the issuer's role, a store on it
    /// and a member of its own.
    private func withIssuerDatabase(_ body: (PostgresClient, SessionStore, Int64) async throws -> Void) async throws {
        let url = TestStack.serviceURL(try await TestStack.freshDatabase(), .tokenIssuer)
        try await withDatabase(url) { database in
            try await database.migrate(schema: IssuerMigrations.schema, migrations: IssuerMigrations.all, functions: IssuerMigrations.functions)
            let store = SessionStore(database: database, refreshTokenTTL: .seconds(3600), reuseGrace: .seconds(2))
            try await body(database, store, Int64.random(in: 1_000_000_000...9_000_000_000))
        }
    }

    /// Makes session `id` expired a second ago.
    private static func expire(_ id: String, in database: PostgresClient) async throws {
        _ = try await database.query("UPDATE issuer.sessions SET expires_at = now() - interval '1 second' WHERE id = \(id)::uuid")
    }

    @Test("expired and long-ended sessions and expired refresh tokens (of the releases before generations) go; live ones stay")
    func cleanUp() async throws {
        try await withIssuerDatabase { database, store, member in

            let live = try await store.startSession(memberId: member, deviceId: "live", provider: .google).id
            let expired = try await store.startSession(memberId: member, deviceId: "expired", provider: .google).id
            let endedLongAgo = try await store.startSession(memberId: member, deviceId: "ended-long-ago", provider: .google).id
            let endedRecently = try await store.startSession(memberId: member, deviceId: "ended-recently", provider: .google).id
            try await Self.expire(expired, in: database)
            _ = try await database.query(
                "UPDATE issuer.sessions SET ended_at = now() - interval '2 hours', end_reason = 'logout' WHERE id = \(endedLongAgo)::uuid")
            _ = try await database.query(
                "UPDATE issuer.sessions SET ended_at = now(), end_reason = 'logout' WHERE id = \(endedRecently)::uuid")
            // Tokens of the releases before generations: an old rotated one of the live session, past its expiry,
            // and a live one.
            _ = try await database.query(
                "INSERT INTO issuer.refresh_tokens (token_hash, session_id, expires_at) VALUES (\(Array(UUID().uuidString.utf8)), \(live)::uuid, now() + interval '1 hour')")
            _ = try await database.query(
                "INSERT INTO issuer.refresh_tokens (token_hash, session_id, expires_at, rotated_at) VALUES (\(Array(UUID().uuidString.utf8)), \(live)::uuid, now() - interval '1 second', now() - interval '2 hours')")

            // Batches of one: the loop must go on until nothing is left.
            let deleted = try await store.cleanUp(endedRetention: .seconds(900), batchSize: 1)
            #expect(deleted == 3)

            let rows = try await database.query(
                "SELECT device_id FROM issuer.sessions WHERE member_id = \(member) ORDER BY device_id")
            #expect(try rows.map { try $0.string("device_id") } == ["ended-recently", "live"])
            let tokens = try await database.query(
                "SELECT count(*) AS n FROM issuer.refresh_tokens WHERE session_id = \(live)::uuid")
            #expect(try tokens.first?.int("n") == 1)
        }
    }

    @Test("a session refreshed while the clean-up waits on its row, chosen as expired, stays")
    func refreshedWhileChosen() async throws {
        try await withIssuerDatabase { database, store, member in
            let id = try await store.startSession(memberId: member, deviceId: "phone", provider: .google).id
            try await Self.expire(id, in: database)
            let cleaning = try await database.withTransaction { connection in
                // A refresh's update of the row, not committed yet: the clean-up's select still sees it expired.
                _ = try await connection.query("UPDATE issuer.sessions SET expires_at = now() + interval '1 hour' WHERE id = \(id)::uuid")
                let cleaning = Task { try await store.cleanUp(endedRetention: .seconds(900)) }
                try await waitUntil(timeout: .seconds(10), "the clean-up did not wait for the session's row") {
                    try await lockWaiters(database, running: "DELETE FROM issuer.sessions") == 1
                }
                return cleaning
            }
            #expect(try await cleaning.value == 0)
            let rows = try await database.query("SELECT count(*) AS n FROM issuer.sessions WHERE id = \(id)::uuid")
            #expect(try rows.first?.int("n") == 1, "the clean-up deleted a session a refresh had just extended")
        }
    }

    @Test("a replica that finds another cleaning leaves the work to it")
    func oneAtATime() async throws {
        try await withIssuerDatabase { database, store, member in
            let expired = try await store.startSession(memberId: member, deviceId: "expired", provider: .google).id
            try await Self.expire(expired, in: database)

            let deletedWhileLocked = try await database.withTransaction { connection in
                _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext('issuer.clean-up'))")
                return try await store.cleanUp(endedRetention: .seconds(900))
            }
            #expect(deletedWhileLocked == 0)
            let rows = try await database.query("SELECT count(*) AS n FROM issuer.sessions WHERE id = \(expired)::uuid")
            #expect(try rows.first?.int("n") == 1)
            #expect(try await store.cleanUp(endedRetention: .seconds(900)) == 1)
        }
    }

    @Test("a session a suspension ended stays while the suspension holds, so its refresh says so; lifted, it goes")
    func suspendedSessionsStay() async throws {
        try await withIssuerDatabase { database, store, member in
            let id = UUID()
            let suspended = try await store.startSession(memberId: member, deviceId: "phone", provider: .google, sessionId: id, secret: sessionTestSecret).id
            _ = try await store.applySuspension(memberId: member, suspended: true, generation: 1, within: .seconds(900))
            _ = try await database.query("UPDATE issuer.sessions SET ended_at = now() - interval '2 hours' WHERE id = \(suspended)::uuid")

            #expect(try await store.cleanUp(endedRetention: .seconds(900)) == 0)
            #expect(try await store.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: "phone").outcome == .suspended)
            _ = try await store.applySuspension(memberId: member, suspended: false, generation: 2, within: .seconds(900))
            #expect(try await store.cleanUp(endedRetention: .seconds(900)) == 1)
            #expect(try await store.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: "phone").outcome == .unknown)
        }
    }

    @Test("expired sessions are found by a scan at most once an interval, whichever replica cleans; ended ones every time")
    func expiredScanInterval() async throws {
        try await withIssuerDatabase { database, store, member in
            #expect(try await store.cleanUp(endedRetention: .seconds(900)) == 0)
            let expired = try await store.startSession(memberId: member, deviceId: "expired", provider: .google).id
            let ended = try await store.startSession(memberId: member, deviceId: "ended", provider: .google).id
            try await Self.expire(expired, in: database)
            _ = try await database.query(
                "UPDATE issuer.sessions SET ended_at = now() - interval '2 hours', end_reason = 'logout' WHERE id = \(ended)::uuid")
            // Another replica (the same database) scanned a moment ago: the ended session goes, the expired one waits.
            let replica = SessionStore(database: database, refreshTokenTTL: .seconds(3600), reuseGrace: .seconds(2))
            #expect(try await replica.cleanUp(endedRetention: .seconds(900)) == 1)
            let left = try await database.query("SELECT id::text AS id FROM issuer.sessions WHERE member_id = \(member)")
            #expect(try left.map { try $0.string("id") } == [expired])
            // The interval over (zero here): it goes.
            #expect(try await store.cleanUp(endedRetention: .seconds(900), expiredScanInterval: .zero) == 1)
        }
    }
}
