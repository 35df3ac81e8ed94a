import Contracts
import Crypto
import Foundation
import Testing
import TestSupport
@testable import TokenIssuer

/// What the issuer's use cases rely on of a ``SessionRepository``, checked against both: PostgreSQL's
/// `SessionStore` and the ``InMemorySessionRepository`` that the use cases' millisecond tests stand on.
@Suite("A session repository keeps its contract, in PostgreSQL and in memory")
struct SessionRepositoryContractTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case postgres, memory
        var testDescription: String { rawValue }
    }

    private static let database = Task {
        try await SchemaDatabase.fresh(.tokenIssuer, schema: IssuerMigrations.schema, migrations: IssuerMigrations.all,
                                       functions: IssuerMigrations.functions)
    }
    private static let secret = SecureRandom.bytes(32)

    private static func make(_ kind: Kind) async throws -> any SessionRepository {
        switch kind {
        case .postgres: SessionStore(database: try await database.value, refreshTokenTTL: .seconds(3_600), reuseGrace: .seconds(30))
        case .memory: InMemorySessionRepository(refreshTokenTTL: .seconds(3_600), reuseGrace: .seconds(30))
        }
    }

    private static func member() -> Int64 { Int64.random(in: 1...Int64(Int32.max)) }

    @Test("a login on a device replaces its session, and the same session named again gets the live session back as it stands", arguments: Kind.allCases)
    func startSession(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = Self.member()
        let named = UUID()
        let started = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: .unknown, sessionId: named, secret: sessionTestSecret)
        let first = started.id
        #expect(started == StartedSession(id: named.uuidString.lowercased(), generation: 0, tag: testTag(0)))
        // A later attempt of the same login brings a secret of its own: it gets the session's, at its generation now.
        let other = SecureRandom.bytes(RefreshTokenKeys.secretBytes)
        #expect(try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: .unknown, sessionId: named, secret: other) == started)
        _ = try await repository.rotate(sessionId: named, generation: 0, tag: testTag(0), deviceId: "phone")
        let resent = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: .unknown, sessionId: named, secret: other)
        #expect(resent == StartedSession(id: first, generation: 1, tag: testTag(1)))
        let next = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: .unknown,
                                                     sessionId: UUID(), secret: sessionTestSecret).id
        let tablet = try await repository.startSession(memberId: member, deviceId: "tablet", provider: .apple, signedInAt: 1, client: .unknown,
                                                       sessionId: UUID(), secret: sessionTestSecret).id
        #expect(Set(try await repository.sessions(memberId: member).map(\.sessionId)) == [next, tablet])
        #expect(try await repository.ended(memberId: member, provider: nil, reason: .replaced, within: .seconds(60)) == [first])
        // The first attempt's session has ended since: a late attempt of that login gets nothing and replaces nothing.
        let late = await failure {
            _ = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: .unknown, sessionId: named, secret: sessionTestSecret)
        }
        #expect(late?.code == .unauthorized)
        #expect(Set(try await repository.sessions(memberId: member).map(\.sessionId)) == [next, tablet])
    }

    @Test("a generation rotates once; a duplicate gets the same successor; the wrong device, an unknown session or a future generation gets none; an older generation ends the session",
          arguments: Kind.allCases)
    func rotation(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = Self.member()
        let id = UUID()
        let session = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 5, client: .unknown, sessionId: id, secret: sessionTestSecret).id
        #expect(try await repository.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: "tablet").outcome == .wrongDevice)
        #expect(try await repository.rotate(sessionId: id, generation: 1, tag: testTag(1), deviceId: "phone").outcome == .unknown)
        // Another tag (a token made with the key but without the session's secret): no token of the session, and nothing changes;
        // so is the tag of generation 0 given for generation 1 (an old token's tag with the key).
        #expect(try await repository.rotate(sessionId: id, generation: 0, tag: Array(repeating: 9, count: 16), deviceId: "phone").outcome == .unknown)
        let rotated = try await repository.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: "phone")
        let replayed = try await repository.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: nil)
        #expect(rotated.outcome == .rotated && replayed.outcome == .replayed)
        #expect(rotated.grant?.sessionId == session && rotated.grant?.memberId == member && rotated.grant?.signedInAt == 5)
        #expect(rotated.grant?.successor == .generation(1, tag: testTag(1)) && replayed.grant?.successor == .generation(1, tag: testTag(1)))
        #expect(try await repository.rotate(sessionId: UUID(), generation: 0, tag: testTag(0), deviceId: nil).outcome == .unknown)
        let onwards = try await repository.rotate(sessionId: id, generation: 1, tag: testTag(1), deviceId: "phone")
        #expect(onwards.outcome == .rotated && onwards.grant?.successor == .generation(2, tag: testTag(2)))
        // Generation 0 now is two behind: a reuse, whatever the window; the session ends, its live token with it.
        #expect(try await repository.rotate(sessionId: id, generation: 0, tag: testTag(0), deviceId: nil).outcome == .reused)
        #expect(try await repository.rotate(sessionId: id, generation: 2, tag: testTag(2), deviceId: nil).outcome == .ended)
    }

    @Test("a deleted member's sessions end and none starts again; ending by provider ends only its sessions", arguments: Kind.allCases)
    func ending(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = Self.member()
        let google = try await repository.startSession(memberId: member, deviceId: "a", provider: .google, signedInAt: 1, client: .unknown, sessionId: UUID(), secret: sessionTestSecret).id
        let apple = try await repository.startSession(memberId: member, deviceId: "b", provider: .apple, signedInAt: 1, client: .unknown, sessionId: UUID(), secret: sessionTestSecret).id
        #expect(try await repository.endSessions(memberId: member, provider: .apple, reason: .identityEnded, startedBefore: nil) == [apple])
        #expect(try await repository.endSession(memberId: member + 1, sessionId: google, reason: .revoked).isEmpty)
        #expect(try await repository.endDeletedMember(member) == [google])
        #expect(try await repository.endDeletedMember(member).isEmpty)
        let refused = await failure {
            _ = try await repository.startSession(memberId: member, deviceId: "c", provider: .google, signedInAt: 1, client: .unknown, sessionId: UUID(), secret: sessionTestSecret)
        }
        #expect(refused?.code == .unauthorized)
    }

    @Test("ending by provider up to a time (an identity.unlinked event's) leaves the sessions started after it", arguments: Kind.allCases)
    func endingUpToATime(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = Self.member()
        let before = try await repository.startSession(memberId: member, deviceId: "a", provider: .apple, signedInAt: 1, client: .unknown, sessionId: UUID(), secret: sessionTestSecret).id
        await Self.tick(repository)
        try await Task.sleep(for: .milliseconds(20))
        var unlinkedAt = Date()
        if let memory = repository as? InMemorySessionRepository { unlinkedAt = await memory.now }
        await Self.tick(repository)
        try await Task.sleep(for: .milliseconds(20))
        let after = try await repository.startSession(memberId: member, deviceId: "b", provider: .apple, signedInAt: 1, client: .unknown, sessionId: UUID(), secret: sessionTestSecret).id
        #expect(try await repository.endSessions(memberId: member, provider: .apple, reason: .identityEnded, startedBefore: unlinkedAt)
                    == [before])
        #expect(try await repository.endSessions(memberId: member, provider: .apple, reason: .identityEnded, startedBefore: nil)
                    == [after], "the later session was ended by the event before it")
    }

    /// Moves the in-memory repository's clock on a little, as PostgreSQL's moves between two statements.
    private static func tick(_ repository: any SessionRepository) async {
        await (repository as? InMemorySessionRepository)?.advance(by: .milliseconds(1))
    }

    @Test("a suspension ends the member's sessions and refuses its logins and refreshes; a late or repeated change changes nothing; lifted, old sessions stay ended and new ones start",
          arguments: Kind.allCases)
    func suspension(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = Self.member()
        let client = SessionClient(platform: "iOS 18.1", appVersion: "MyApp 2.3.1")
        let phoneId = UUID()
        let phone = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: client,
                                                      sessionId: phoneId, secret: sessionTestSecret).id
        let tablet = try await repository.startSession(memberId: member, deviceId: "tablet", provider: .apple, signedInAt: 1,
                                                       client: .unknown, sessionId: UUID(), secret: sessionTestSecret).id
        let other = try await repository.startSession(memberId: member + 1, deviceId: "phone", provider: .google, signedInAt: 1,
                                                      client: .unknown, sessionId: UUID(), secret: sessionTestSecret).id
        #expect(try await repository.sessions(memberId: member).first { $0.sessionId == phone }?.platform == "iOS 18.1")
        await Self.tick(repository)

        let suspended = try await repository.applySuspension(memberId: member, suspended: true, generation: 2, within: .seconds(60))
        #expect(suspended.applied && suspended.suspended)
        #expect(Set(suspended.sessionIds) == [phone, tablet])
        #expect(try await repository.sessions(memberId: member).isEmpty)
        #expect(try await repository.sessions(memberId: member + 1).map(\.sessionId) == [other])
        #expect(try await repository.rotate(sessionId: phoneId, generation: 0, tag: testTag(0), deviceId: "phone").outcome == .suspended)
        let refused = await failure {
            _ = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: .unknown,
                                                  sessionId: UUID(), secret: sessionTestSecret)
        }
        #expect(refused == .memberSuspended)

        // The same change again (the event after the call) answers the same sessions and changes nothing; an older
        // lifting, arriving late, loses to it.
        let repeated = try await repository.applySuspension(memberId: member, suspended: true, generation: 2, within: .seconds(60))
        #expect(!repeated.applied && repeated.suspended && Set(repeated.sessionIds) == Set(suspended.sessionIds))
        let late = try await repository.applySuspension(memberId: member, suspended: false, generation: 1, within: .seconds(60))
        #expect(!late.applied && late.suspended)
        #expect(try await repository.rotate(sessionId: phoneId, generation: 0, tag: testTag(0), deviceId: "phone").outcome == .suspended)

        let lifted = try await repository.applySuspension(memberId: member, suspended: false, generation: 3, within: .seconds(60))
        #expect(lifted == SuspensionChange(applied: true, suspended: false, sessionIds: []))
        #expect(try await repository.rotate(sessionId: phoneId, generation: 0, tag: testTag(0), deviceId: "phone").outcome == .ended)
        let again = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1,
                                                      client: .unknown, sessionId: UUID(), secret: sessionTestSecret).id
        #expect(try await repository.sessions(memberId: member).map(\.sessionId) == [again])
        // A late suspension (generation 2, redelivered) does not undo the lifting.
        let redelivered = try await repository.applySuspension(memberId: member, suspended: true, generation: 2, within: .seconds(60))
        #expect(redelivered == SuspensionChange(applied: false, suspended: false, sessionIds: []))
        #expect(try await repository.sessions(memberId: member).map(\.sessionId) == [again])
    }

    @Test("an admin sees a member's sessions, live and ended, newest first, and ends one by ID, once", arguments: Kind.allCases)
    func adminSessions(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = Self.member()
        let first = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1,
                                                      client: SessionClient(platform: "iOS 18.1", appVersion: "MyApp 2.3.1"), sessionId: UUID(), secret: sessionTestSecret).id
        await Self.tick(repository)
        let second = try await repository.startSession(memberId: member, deviceId: "phone", provider: .kakao, signedInAt: 1,
                                                       client: .unknown, sessionId: UUID(), secret: sessionTestSecret).id
        await Self.tick(repository)
        let third = try await repository.startSession(memberId: member, deviceId: "tablet", provider: .apple, signedInAt: 1,
                                                      client: .unknown, sessionId: UUID(), secret: sessionTestSecret).id
        let listed = try await repository.adminSessions(memberId: member, limit: 10)
        #expect(listed.map(\.sessionId) == [third, second, first])
        #expect(listed.map(\.provider) == [.apple, .kakao, .google])
        #expect(listed[2].platform == "iOS 18.1" && listed[2].appVersion == "MyApp 2.3.1" && listed[2].endReason == "replaced")
        #expect(listed[2].endedAt != nil && listed[0].endedAt == nil && listed[0].endReason == nil)
        #expect(try await repository.adminSessions(memberId: member, limit: 2).map(\.sessionId) == [third, second])

        let ended = try #require(try await repository.endSession(sessionId: third, reason: .admin))
        #expect(ended.memberId == member && ended.ended == [third])
        let again = try #require(try await repository.endSession(sessionId: third, reason: .admin))
        #expect(again.memberId == member && again.ended.isEmpty)
        #expect(try await repository.endSession(sessionId: UUID().uuidString.lowercased(), reason: .admin) == nil)
        #expect(try await repository.adminSessions(memberId: member, limit: 10).first?.endReason == "admin")
        #expect(try await repository.sessions(memberId: member).map(\.sessionId) == [second])
    }
}
