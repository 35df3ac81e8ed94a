import Contracts
import Crypto
import Foundation
import Postgres
import Testing
import TestSupport
@testable import TokenIssuer

/// `SessionStore` against a fresh database of its own (as token_issuer), without NATS: sessions
/// start, replace, rotate, replay, detect reuse and end; their events wait in the outbox.
@Suite("Session store")
struct SessionStoreTests {
    static let store = Task {
        let database = try await SchemaDatabase.fresh(.tokenIssuer, schema: IssuerMigrations.schema,
                                                      migrations: IssuerMigrations.all, functions: IssuerMigrations.functions)
        return SessionStore(database: database, refreshTokenTTL: .seconds(3_600), reuseGrace: .seconds(30))
    }
    static let secret = SecureRandom.bytes(32)

    static func member() -> Int64 { Int64.random(in: 1...Int64(Int32.max)) }

    /// The outbox's events about `sessionId`, oldest first, as `event reason`.
    static func events(_ store: SessionStore, _ sessionId: String) async throws -> [String] {
        try await store.database.query("SELECT event, reason FROM issuer.outbox WHERE session_id = \(sessionId)::uuid ORDER BY seq")
            .map { "\(try $0.string("event")) \(try $0.string("reason"))" }
    }

    @Test("a login on a device replaces that device's session only")
    func replacement() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        let first = try await store.startSession(memberId: member, deviceId: "phone", provider: .google).sessionId
        let second = try await store.startSession(memberId: member, deviceId: "phone", provider: .google).sessionId
        let tablet = try await store.startSession(memberId: member, deviceId: "tablet", provider: .apple).sessionId
        #expect(Set(try await store.sessions(memberId: member).map(\.sessionId)) == [second, tablet])
        #expect(try await Self.events(store, first) == ["session.ended replaced"])
        #expect(try await Self.events(store, second).isEmpty)
    }

    @Test("a sign-in more than a minute ahead is stored as a minute ahead; the calls of the release before still work, their sessions signed in at their start")
    func signInTimeBounds() async throws {
        let store = try await Self.store.value
        let now = Int64(Date().timeIntervalSince1970)
        let (_, ahead) = try await store.startSession(memberId: Self.member(), deviceId: "d", provider: .google, signedInAt: now + 3_600)
        let rotated = try await store.rotate(ahead, deviceId: "d", secret: Self.secret)
        #expect(try #require(rotated.grant?.signedInAt) <= Int64(Date().timeIntervalSince1970) + 61)

        // The previous release's calls: five named arguments, and the rotation's columns it reads by name.
        let token = RefreshToken.random()
        let started = try await store.database.query("""
            SELECT issuer.start_session(p_member => \(Self.member()), p_device => 'old', p_provider => 'GOOGLE',
                                        p_token_hash => \(token.hash), p_ttl_seconds => 3600)::text AS id
            """)
        #expect(started.count == 1 && !(started.first?.isNull("id") ?? true))
        let successor = token.successor(secret: Self.secret)
        let old = try await store.database.query("""
            SELECT outcome, status, session_id, member_id FROM issuer.rotate_refresh_token(
                p_token_hash => \(token.hash), p_successor_hash => \(successor.hash), p_device => 'old',
                p_grace_seconds => 30, p_ttl_seconds => 3600)
            """)
        #expect(try old.first?.string("outcome") == "rotated")
        #expect(try old.first?.string("status") == "rotated")
        // A session of the release before (no signed_in_at): its sign-in is its start.
        _ = try await store.database.query("UPDATE issuer.sessions SET signed_in_at = NULL, created_at = now() - interval '2 hours' WHERE id = \(try #require(old.first?.uuid("session_id")))")
        let next = try await store.rotate(successor, deviceId: "old", secret: Self.secret)
        #expect(next.outcome == .rotated)
        #expect(abs(try #require(next.grant?.signedInAt) - (now - 7_200)) <= 2)
    }

    @Test("rotated, then replayed inside the grace window with the same successor, then reuse ends the session")
    func rotation() async throws {
        let store = try await Self.store.value
        // A sign-in an hour ago: every grant hands that time back, not the refresh's.
        let signedInAt = Int64(Date().timeIntervalSince1970) - 3_600
        let (sessionId, token) = try await store.startSession(memberId: Self.member(), deviceId: "d", provider: .google, signedInAt: signedInAt)
        let rotated = try await store.rotate(token, deviceId: "d", secret: Self.secret)
        #expect(rotated.outcome == .rotated)
        #expect(rotated.grant?.sessionId == sessionId)
        #expect(rotated.grant?.signedInAt == signedInAt)
        let replayed = try await store.rotate(token, deviceId: "d", secret: Self.secret)
        #expect(replayed.outcome == .replayed)
        #expect(replayed.grant?.token.value == rotated.grant?.token.value)
        #expect(replayed.grant?.signedInAt == signedInAt)
        let again = try await store.rotate(try #require(rotated.grant?.token), deviceId: "d", secret: Self.secret)
        #expect(again.grant?.signedInAt == signedInAt)

        _ = try await store.database.query(
            "UPDATE issuer.refresh_tokens SET rotated_at = now() - interval '1 hour' WHERE token_hash = \(token.hash)")
        let reused = try await store.rotate(token, deviceId: "d", secret: Self.secret)
        #expect(reused.outcome == .reused)
        #expect(reused.grant == nil)
        #expect(try await Self.events(store, sessionId) == ["refresh-token.reused reuse", "session.ended reuse"])
        // The successor died with the session.
        let successor = try #require(rotated.grant?.token)
        #expect(try await store.rotate(successor, deviceId: "d", secret: Self.secret).outcome == .ended)
    }

    @Test("an unknown token, another device and an expired session are each told apart")
    func refusals() async throws {
        let store = try await Self.store.value
        #expect(try await store.rotate(RefreshToken.random(), deviceId: nil, secret: Self.secret).outcome == .unknown)
        let (_, token) = try await store.startSession(memberId: Self.member(), deviceId: "mine", provider: .kakao)
        #expect(try await store.rotate(token, deviceId: "theirs", secret: Self.secret).outcome == .wrongDevice)
        let (expiredId, expiring) = try await store.startSession(memberId: Self.member(), deviceId: "d", provider: .kakao)
        _ = try await store.database.query(
            "UPDATE issuer.sessions SET expires_at = now() - interval '1 second' WHERE id = \(expiredId)::uuid")
        #expect(try await store.rotate(expiring, deviceId: "d", secret: Self.secret).outcome == .expired)
        // Neither refusal changed anything.
        #expect(try await store.rotate(token, deviceId: "mine", secret: Self.secret).outcome == .rotated)
    }

    @Test("ending one session, a provider's sessions, and another member's session")
    func endSessions() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        let google = try await store.startSession(memberId: member, deviceId: "a", provider: .google).sessionId
        let apple = try await store.startSession(memberId: member, deviceId: "b", provider: .apple).sessionId
        let other = try await store.startSession(memberId: member, deviceId: "c", provider: .naver).sessionId
        #expect(try await store.endSession(memberId: member + 1, sessionId: google, reason: .revoked).isEmpty)
        #expect(try await store.endSessions(memberId: member, provider: .apple, reason: .identityEnded) == [apple])
        #expect(try await store.endSession(memberId: member, sessionId: google, reason: .logout) == [google])
        #expect(try await store.endSession(memberId: member, sessionId: google, reason: .logout).isEmpty)
        #expect(try await store.sessions(memberId: member).map(\.sessionId) == [other])
        #expect(try await Self.events(store, apple) == ["session.ended identity-ended"])
    }

    @Test("a deleted member's sessions end and no new one starts; a second deletion ends nothing")
    func deletedMember() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        let live = try await store.startSession(memberId: member, deviceId: "d", provider: .google).sessionId
        #expect(try await store.endDeletedMember(member) == [live])
        await #expect(throws: ServiceFailure(.unauthorized, "The member no longer exists; sign in again.")) {
            _ = try await store.startSession(memberId: member, deviceId: "d", provider: .google)
        }
        #expect(try await store.endDeletedMember(member).isEmpty)
        #expect(try await Self.events(store, live) == ["session.ended member-deleted"])
    }

    @Test("start_session of the release before (six arguments) still starts a session, without its app")
    func startSessionOfTheReleaseBefore() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        let token = RefreshToken.random()
        let started = try await store.database.query("""
            SELECT issuer.start_session(p_member => \(member), p_device => 'old', p_provider => 'GOOGLE',
                                        p_token_hash => \(token.hash), p_ttl_seconds => 3600, p_signed_in_at => 1)::text AS id
            """)
        #expect(started.count == 1 && !(started.first?.isNull("id") ?? true))
        let listed = try await store.sessions(memberId: member)
        #expect(listed.count == 1 && listed.first?.platform == nil && listed.first?.appVersion == nil)
    }
}
