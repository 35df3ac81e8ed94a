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

    /// Starts a session as a replica of the release before generations does: its first token's hash kept, no
    /// session named, no secret (with `signedInAt`, the six-argument call of the release that added it); its ID.
    static func startLegacySession(_ store: SessionStore, member: Int64, device: String, token: LegacyRefreshToken,
                                   signedInAt: Int64? = nil) async throws -> String {
        let started = try await store.database.query("""
            SELECT issuer.start_session(p_member => \(member), p_device => \(device), p_provider => 'GOOGLE',
                                        p_token_hash => \(token.hash), p_ttl_seconds => 3600, p_signed_in_at => \(signedInAt))::text AS id
            """)
        return try #require(try started.first?.string("id"))
    }

    /// The outbox's events about `sessionId`, oldest first, as `event reason`.
    static func events(_ store: SessionStore, _ sessionId: String) async throws -> [String] {
        try await store.database.query("SELECT event, reason FROM issuer.outbox WHERE session_id = \(sessionId)::uuid ORDER BY seq")
            .map { "\(try $0.string("event")) \(try $0.string("reason"))" }
    }

    @Test("a login on a device replaces that device's session only")
    func replacement() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        let first = try await store.startSession(memberId: member, deviceId: "phone", provider: .google).id
        let second = try await store.startSession(memberId: member, deviceId: "phone", provider: .google).id
        let tablet = try await store.startSession(memberId: member, deviceId: "tablet", provider: .apple).id
        #expect(Set(try await store.sessions(memberId: member).map(\.sessionId)) == [second, tablet])
        #expect(try await Self.events(store, first) == ["session.ended replaced"])
        #expect(try await Self.events(store, second).isEmpty)
    }

    @Test("the database makes each session's secret (16 bytes, another each time); the first token's tag is made from it")
    func secretsMadeInTheDatabase() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        let phone = try await store.startSession(memberId: member, deviceId: "phone", provider: .google)
        let tablet = try await store.startSession(memberId: member, deviceId: "tablet", provider: .google)
        let secrets = try await store.database.query(
            "SELECT token_secret FROM issuer.sessions WHERE id IN (\(phone.id)::uuid, \(tablet.id)::uuid) ORDER BY id = \(phone.id)::uuid DESC")
            .map { try $0.bytes("token_secret") }
        #expect(secrets.count == 2 && secrets.allSatisfy { $0.count == RefreshTokenKeys.secretBytes } && secrets[0] != secrets[1])
        #expect(phone.tag == RefreshTokenKeys.tag(secret: secrets[0], generation: 0) && phone.generation == 0)
        #expect(tablet.tag == RefreshTokenKeys.tag(secret: secrets[1], generation: 0))
    }

    @Test("an attempt of a login more than two minutes after its session started gets no token, and replaces nothing")
    func lateAttempt() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        let id = UUID()
        let started = try await store.startSession(memberId: member, deviceId: "phone", provider: .google, sessionId: id)
        #expect(try await store.startSession(memberId: member, deviceId: "phone", provider: .google, sessionId: id) == started)
        _ = try await store.database.query("UPDATE issuer.sessions SET created_at = now() - interval '121 seconds' WHERE id = \(id)")
        let late = await failure { _ = try await store.startSession(memberId: member, deviceId: "phone", provider: .google, sessionId: id) }
        #expect(late?.code == .unauthorized)
        #expect(try await store.sessions(memberId: member).map(\.sessionId) == [started.id])
    }

    @Test("a sign-in more than a minute ahead is stored as a minute ahead; a session of the release before (no sign-in time) signed in at its start")
    func signInTimeBounds() async throws {
        let store = try await Self.store.value
        let now = Int64(Date().timeIntervalSince1970)
        let ahead = UUID()
        _ = try await store.startSession(memberId: Self.member(), deviceId: "d", provider: .google, signedInAt: now + 3_600, sessionId: ahead, secret: sessionTestSecret)
        let rotated = try await store.rotate(sessionId: ahead, generation: 0, tag: testTag(0), deviceId: "d")
        #expect(try #require(rotated.grant?.signedInAt) <= Int64(Date().timeIntervalSince1970) + 61)

        let old = UUID()
        _ = try await store.startSession(memberId: Self.member(), deviceId: "old", provider: .google, sessionId: old, secret: sessionTestSecret)
        _ = try await store.database.query("UPDATE issuer.sessions SET signed_in_at = NULL, created_at = now() - interval '2 hours' WHERE id = \(old)")
        let next = try await store.rotate(sessionId: old, generation: 0, tag: testTag(0), deviceId: "old")
        #expect(next.outcome == .rotated)
        #expect(abs(try #require(next.grant?.signedInAt) - (now - 7_200)) <= 2)
    }

    @Test("rotated in one statement that writes no row, replayed inside the grace window, and after it a reuse that ends the session")
    func rotation() async throws {
        let store = try await Self.store.value
        // A sign-in an hour ago: every grant hands that time back, not the refresh's.
        let signedInAt = Int64(Date().timeIntervalSince1970) - 3_600
        let id = UUID()
        let sessionId = try await store.startSession(memberId: Self.member(), deviceId: "d", provider: .google, signedInAt: signedInAt, sessionId: id, secret: sessionTestSecret).id
        let rotated = try await store.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: "d")
        #expect(rotated.outcome == .rotated && rotated.grant?.successor == .generation(1, tag: testTag(1)))
        #expect(rotated.grant?.sessionId == sessionId)
        #expect(rotated.grant?.signedInAt == signedInAt)
        let replayed = try await store.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: "d")
        #expect(replayed.outcome == .replayed && replayed.grant?.successor == .generation(1, tag: testTag(1)))
        #expect(replayed.grant?.signedInAt == signedInAt)
        #expect(try await Self.refreshTokenRows(store, of: id) == 0, "a login or a rotation wrote a token row")

        // The grace window is over: the same duplicate is a reuse.
        _ = try await store.database.query("UPDATE issuer.sessions SET rotated_at = now() - interval '1 hour' WHERE id = \(id)")
        let reused = try await store.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: "d")
        #expect(reused.outcome == .reused)
        #expect(reused.grant == nil)
        #expect(try await Self.events(store, sessionId) == ["refresh-token.reused reuse", "session.ended reuse"])
        // The successor died with the session.
        #expect(try await store.rotate(sessionId: id, generation: 1, tag: testTag(1), deviceId: "d").outcome == .ended)
    }

    @Test("two refreshes of one token at once: one rotation and one replay of the same generation")
    func concurrentDoubleRefresh() async throws {
        let store = try await Self.store.value
        for _ in 0..<20 {
            let id = UUID()
            _ = try await store.startSession(memberId: Self.member(), deviceId: "d", provider: .google, sessionId: id, secret: sessionTestSecret)
            async let first = store.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: "d")
            async let second = store.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: "d")
            let outcomes = try await [first, second]
            #expect(outcomes.map(\.outcome).sorted { $0.rawValue < $1.rawValue } == [.replayed, .rotated])
            #expect(outcomes.map { $0.grant?.successor } == [.generation(1, tag: testTag(1)), .generation(1, tag: testTag(1))])
            #expect(try await store.rotate(sessionId: id, generation: 1, tag: testTag(1), deviceId: "d").outcome == .rotated)
        }
    }

    @Test("eight attempts of one login racing (one session ID): one session, and each attempt gets it with the same generation and tag")
    func loginAttemptsRacing() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        let id = UUID()
        let started = try await withThrowingTaskGroup(of: StartedSession.self) { group in
            for _ in 0..<8 { group.addTask { try await store.startSession(memberId: member, deviceId: "racing", provider: .google, sessionId: id) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(started.count == 8 && Set(started.map(\.id)) == [id.uuidString.lowercased()])
        #expect(started.allSatisfy { $0 == started[0] && $0.generation == 0 && $0.tag.count == RefreshTokenKeys.tagBytes })
        let rows = try await store.database.query(
            "SELECT count(*) AS n, count(*) FILTER (WHERE ended_at IS NULL) AS live FROM issuer.sessions WHERE member_id = \(member)")
        #expect(try rows.first?.int("n") == 1 && rows.first?.int("live") == 1)
    }

    @Test("two refreshes of one token that both wait on the session's row: one rotates, the other replays the same successor")
    func doubleRefreshOnTheLockedRow() async throws {
        let store = try await Self.store.value
        let id = UUID()
        _ = try await store.startSession(memberId: Self.member(), deviceId: "d", provider: .google, sessionId: id, secret: sessionTestSecret)
        let refreshes = try await store.database.withTransaction { connection in
            // The row held: both UPDATEs wait for it, so they are under way together when it comes free.
            _ = try await connection.query("SELECT 1 FROM issuer.sessions WHERE id = \(id) FOR UPDATE")
            let refreshes = (0..<2).map { _ in
                Task { try await store.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: "d") }
            }
            try await waitUntil(timeout: .seconds(10), "the refreshes did not both wait for the session's row") {
                try await lockWaiters(store.database, running: "SET generation = generation + 1") == 2
            }
            return refreshes
        }
        var outcomes: [RefreshRotation] = []
        for refresh in refreshes { outcomes.append(try await refresh.value) }
        #expect(outcomes.map(\.outcome).sorted { $0.rawValue < $1.rawValue } == [.replayed, .rotated])
        #expect(outcomes.map { $0.grant?.successor } == [.generation(1, tag: testTag(1)), .generation(1, tag: testTag(1))])
    }

    @Test("a token issued before generations still refreshes, into a generation; its duplicate replays; after the window, a reuse")
    func legacyTokens() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        // A session the release before started, with its first token.
        let token = LegacyRefreshToken.random()
        let sessionId = try await Self.startLegacySession(store, member: member, device: "old", token: token, signedInAt: 1)
        let rotated = try await store.rotateLegacy(token, deviceId: "old", secret: Self.secret)
        // The session gets its secret at this rotation, and the grant hands back the generation's tag.
        guard case .generation(1, let tag)? = rotated.grant?.successor else {
            Issue.record("not rotated into generation 1: \(rotated.outcome)")
            return
        }
        #expect(rotated.outcome == .rotated && tag.count == RefreshTokenKeys.tagBytes && rotated.grant?.sessionId == sessionId)
        let replayed = try await store.rotateLegacy(token, deviceId: nil, secret: Self.secret)
        #expect(replayed.outcome == .replayed && replayed.grant?.successor == .generation(1, tag: tag))
        // Its successor is a generation like any other.
        let id = try #require(UUID(uuidString: sessionId))
        #expect(try await store.rotate(sessionId: id, generation: 1, tag: testTag(1), deviceId: "old").outcome == .unknown)
        #expect(try await store.rotate(sessionId: id, generation: 1, tag: tag, deviceId: "old").outcome == .rotated)
        // The session moved on: the old token is a reuse even inside the window.
        #expect(try await store.rotateLegacy(token, deviceId: nil, secret: Self.secret).outcome == .reused)
        #expect(try await Self.events(store, sessionId) == ["refresh-token.reused reuse", "session.ended reuse"])

        // A token the release before rotated (its successor stored): a duplicate inside the window gets that successor.
        let older = LegacyRefreshToken.random()
        _ = try await Self.startLegacySession(store, member: member, device: "older", token: older)
        let successor = older.successor(secret: Self.secret)
        let before = try await store.database.query("""
            SELECT outcome FROM issuer.rotate_refresh_token(p_token_hash => \(older.hash), p_successor_hash => \(successor.hash),
                                                            p_device => 'older', p_grace_seconds => 30, p_ttl_seconds => 3600)
            """)
        #expect(try before.first?.string("outcome") == "rotated")
        let duplicate = try await store.rotateLegacy(older, deviceId: "older", secret: Self.secret)
        #expect(duplicate.outcome == .replayed && duplicate.grant?.successor == .legacy(successor.value))
        let next = try await store.rotateLegacy(successor, deviceId: "older", secret: Self.secret)
        guard case .generation(1, let olderTag)? = next.grant?.successor else {
            Issue.record("not rotated into generation 1: \(next.outcome)")
            return
        }
        #expect(next.outcome == .rotated && olderTag != tag)
        #expect(try await store.rotateLegacy(LegacyRefreshToken.random(), deviceId: nil, secret: Self.secret).outcome == .unknown)
    }

    @Test("a session of an earlier release (no secret yet) answers no token by generation, whatever its tag, and nothing ends")
    func legacySessionWithoutSecret() async throws {
        let store = try await Self.store.value
        let token = LegacyRefreshToken.random()
        let text = try await Self.startLegacySession(store, member: Self.member(), device: "old", token: token)
        let id = try #require(UUID(uuidString: text))
        for generation: Int64 in [0, 1] {
            for tag in [testTag(generation), Array(repeating: UInt8(0), count: 16)] {
                #expect(try await store.rotate(sessionId: id, generation: generation, tag: tag, deviceId: nil).outcome == .unknown)
            }
        }
        #expect(try await store.rotateLegacy(token, deviceId: "old", secret: Self.secret).outcome == .rotated)
    }

    @Test("an unknown session, a future generation, another device and an expired session are each told apart, and change nothing")
    func refusals() async throws {
        let store = try await Self.store.value
        #expect(try await store.rotate(sessionId: UUID(), generation: 0, tag: testTag(0), deviceId: nil).outcome == .unknown)
        let mine = UUID()
        _ = try await store.startSession(memberId: Self.member(), deviceId: "mine", provider: .kakao, sessionId: mine, secret: sessionTestSecret)
        #expect(try await store.rotate(sessionId: mine, generation: 0, tag: testTag(0), deviceId: "theirs").outcome == .wrongDevice)
        #expect(try await store.rotate(sessionId: mine, generation: 5, tag: testTag(5), deviceId: "mine").outcome == .unknown)
        let expiring = UUID()
        _ = try await store.startSession(memberId: Self.member(), deviceId: "d", provider: .kakao, sessionId: expiring, secret: sessionTestSecret)
        _ = try await store.database.query(
            "UPDATE issuer.sessions SET expires_at = now() - interval '1 second' WHERE id = \(expiring)")
        #expect(try await store.rotate(sessionId: expiring, generation: 0, tag: testTag(0), deviceId: "d").outcome == .expired)
        // No refusal changed anything.
        #expect(try await store.rotate(sessionId: mine, generation: 0, tag: testTag(0), deviceId: "mine").outcome == .rotated)
    }

    /// How many rows of `issuer.refresh_tokens` the session has.
    static func refreshTokenRows(_ store: SessionStore, of sessionId: UUID) async throws -> Int64 {
        try await store.database.query("SELECT count(*) AS n FROM issuer.refresh_tokens WHERE session_id = \(sessionId)").first?.int("n") ?? -1
    }

    @Test("ending one session, a provider's sessions, and another member's session")
    func endSessions() async throws {
        let store = try await Self.store.value
        let member = Self.member()
        let google = try await store.startSession(memberId: member, deviceId: "a", provider: .google).id
        let apple = try await store.startSession(memberId: member, deviceId: "b", provider: .apple).id
        let other = try await store.startSession(memberId: member, deviceId: "c", provider: .naver).id
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
        let live = try await store.startSession(memberId: member, deviceId: "d", provider: .google).id
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
        let token = LegacyRefreshToken.random()
        _ = try await Self.startLegacySession(store, member: member, device: "old", token: token, signedInAt: 1)
        let listed = try await store.sessions(memberId: member)
        #expect(listed.count == 1 && listed.first?.platform == nil && listed.first?.appVersion == nil)
    }
}
