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

    @Test("a login on a device replaces its session, and the same first token gets the live session back", arguments: Kind.allCases)
    func startSession(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = Self.member()
        let token = RefreshToken.random()
        let first = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: .unknown, token: token)
        let resent = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: .unknown, token: token)
        #expect(resent.sessionId == first.sessionId)
        let next = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: .unknown,
                                                     token: .random())
        let tablet = try await repository.startSession(memberId: member, deviceId: "tablet", provider: .apple, signedInAt: 1, client: .unknown,
                                                       token: .random())
        #expect(Set(try await repository.sessions(memberId: member).map(\.sessionId)) == [next.sessionId, tablet.sessionId])
        #expect(try await repository.ended(memberId: member, provider: nil, reason: .replaced, within: .seconds(60)) == [first.sessionId])
        // The first attempt's session has ended since: a late attempt of that login gets nothing and replaces nothing.
        let late = await failure {
            _ = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: .unknown, token: token)
        }
        #expect(late?.code == .unauthorized)
        #expect(Set(try await repository.sessions(memberId: member).map(\.sessionId)) == [next.sessionId, tablet.sessionId])
    }

    @Test("a token rotates once; a duplicate gets the same successor; the wrong device or an unknown token gets none",
          arguments: Kind.allCases)
    func rotation(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = Self.member()
        let token = RefreshToken.random()
        let session = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 5, client: .unknown, token: token)
        #expect(try await repository.rotate(token, deviceId: "tablet", secret: Self.secret).outcome == .wrongDevice)
        let rotated = try await repository.rotate(token, deviceId: "phone", secret: Self.secret)
        let replayed = try await repository.rotate(token, deviceId: nil, secret: Self.secret)
        #expect(rotated.outcome == .rotated && replayed.outcome == .replayed)
        #expect(rotated.grant?.sessionId == session.sessionId && rotated.grant?.memberId == member && rotated.grant?.signedInAt == 5)
        #expect(rotated.grant?.token.value == replayed.grant?.token.value)
        #expect(try await repository.rotate(.random(), deviceId: nil, secret: Self.secret).outcome == .unknown)
        // A duplicate that derived another successor (another secret) is a reuse: the session ends.
        #expect(try await repository.rotate(token, deviceId: nil, secret: SecureRandom.bytes(32)).outcome == .reused)
        #expect(try await repository.rotate(try #require(rotated.grant?.token), deviceId: nil, secret: Self.secret).outcome == .ended)
    }

    @Test("a deleted member's sessions end and none starts again; ending by provider ends only its sessions", arguments: Kind.allCases)
    func ending(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = Self.member()
        let google = try await repository.startSession(memberId: member, deviceId: "a", provider: .google, signedInAt: 1, client: .unknown, token: .random())
        let apple = try await repository.startSession(memberId: member, deviceId: "b", provider: .apple, signedInAt: 1, client: .unknown, token: .random())
        #expect(try await repository.endSessions(memberId: member, provider: .apple, reason: .identityEnded, startedBefore: nil) == [apple.sessionId])
        #expect(try await repository.endSession(memberId: member + 1, sessionId: google.sessionId, reason: .revoked).isEmpty)
        #expect(try await repository.endDeletedMember(member) == [google.sessionId])
        #expect(try await repository.endDeletedMember(member).isEmpty)
        let refused = await failure {
            _ = try await repository.startSession(memberId: member, deviceId: "c", provider: .google, signedInAt: 1, client: .unknown, token: .random())
        }
        #expect(refused?.code == .unauthorized)
    }

    @Test("ending by provider up to a time (an identity.unlinked event's) leaves the sessions started after it", arguments: Kind.allCases)
    func endingUpToATime(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = Self.member()
        let before = try await repository.startSession(memberId: member, deviceId: "a", provider: .apple, signedInAt: 1, client: .unknown, token: .random())
        await Self.tick(repository)
        try await Task.sleep(for: .milliseconds(20))
        var unlinkedAt = Date()
        if let memory = repository as? InMemorySessionRepository { unlinkedAt = await memory.now }
        await Self.tick(repository)
        try await Task.sleep(for: .milliseconds(20))
        let after = try await repository.startSession(memberId: member, deviceId: "b", provider: .apple, signedInAt: 1, client: .unknown, token: .random())
        #expect(try await repository.endSessions(memberId: member, provider: .apple, reason: .identityEnded, startedBefore: unlinkedAt)
                    == [before.sessionId])
        #expect(try await repository.endSessions(memberId: member, provider: .apple, reason: .identityEnded, startedBefore: nil)
                    == [after.sessionId], "the later session was ended by the event before it")
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
        let token = RefreshToken.random()
        let phone = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: client,
                                                      token: token)
        let tablet = try await repository.startSession(memberId: member, deviceId: "tablet", provider: .apple, signedInAt: 1,
                                                       client: .unknown, token: .random())
        let other = try await repository.startSession(memberId: member + 1, deviceId: "phone", provider: .google, signedInAt: 1,
                                                      client: .unknown, token: .random())
        #expect(try await repository.sessions(memberId: member).first { $0.sessionId == phone.sessionId }?.platform == "iOS 18.1")
        await Self.tick(repository)

        let suspended = try await repository.applySuspension(memberId: member, suspended: true, generation: 2, within: .seconds(60))
        #expect(suspended.applied && suspended.suspended)
        #expect(Set(suspended.sessionIds) == [phone.sessionId, tablet.sessionId])
        #expect(try await repository.sessions(memberId: member).isEmpty)
        #expect(try await repository.sessions(memberId: member + 1).map(\.sessionId) == [other.sessionId])
        #expect(try await repository.rotate(token, deviceId: "phone", secret: Self.secret).outcome == .suspended)
        let refused = await failure {
            _ = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1, client: .unknown,
                                                  token: .random())
        }
        #expect(refused == .memberSuspended)

        // The same change again (the event after the call) answers the same sessions and changes nothing; an older
        // lifting, arriving late, loses to it.
        let repeated = try await repository.applySuspension(memberId: member, suspended: true, generation: 2, within: .seconds(60))
        #expect(!repeated.applied && repeated.suspended && Set(repeated.sessionIds) == Set(suspended.sessionIds))
        let late = try await repository.applySuspension(memberId: member, suspended: false, generation: 1, within: .seconds(60))
        #expect(!late.applied && late.suspended)
        #expect(try await repository.rotate(token, deviceId: "phone", secret: Self.secret).outcome == .suspended)

        let lifted = try await repository.applySuspension(memberId: member, suspended: false, generation: 3, within: .seconds(60))
        #expect(lifted == SuspensionChange(applied: true, suspended: false, sessionIds: []))
        #expect(try await repository.rotate(token, deviceId: "phone", secret: Self.secret).outcome == .ended)
        let again = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1,
                                                      client: .unknown, token: .random())
        #expect(try await repository.sessions(memberId: member).map(\.sessionId) == [again.sessionId])
        // A late suspension (generation 2, redelivered) does not undo the lifting.
        let redelivered = try await repository.applySuspension(memberId: member, suspended: true, generation: 2, within: .seconds(60))
        #expect(redelivered == SuspensionChange(applied: false, suspended: false, sessionIds: []))
        #expect(try await repository.sessions(memberId: member).map(\.sessionId) == [again.sessionId])
    }

    @Test("an admin sees a member's sessions, live and ended, newest first, and ends one by ID, once", arguments: Kind.allCases)
    func adminSessions(_ kind: Kind) async throws {
        let repository = try await Self.make(kind)
        let member = Self.member()
        let first = try await repository.startSession(memberId: member, deviceId: "phone", provider: .google, signedInAt: 1,
                                                      client: SessionClient(platform: "iOS 18.1", appVersion: "MyApp 2.3.1"), token: .random())
        await Self.tick(repository)
        let second = try await repository.startSession(memberId: member, deviceId: "phone", provider: .kakao, signedInAt: 1,
                                                       client: .unknown, token: .random())
        await Self.tick(repository)
        let third = try await repository.startSession(memberId: member, deviceId: "tablet", provider: .apple, signedInAt: 1,
                                                      client: .unknown, token: .random())
        let listed = try await repository.adminSessions(memberId: member, limit: 10)
        #expect(listed.map(\.sessionId) == [third.sessionId, second.sessionId, first.sessionId])
        #expect(listed.map(\.provider) == [.apple, .kakao, .google])
        #expect(listed[2].platform == "iOS 18.1" && listed[2].appVersion == "MyApp 2.3.1" && listed[2].endReason == "replaced")
        #expect(listed[2].endedAt != nil && listed[0].endedAt == nil && listed[0].endReason == nil)
        #expect(try await repository.adminSessions(memberId: member, limit: 2).map(\.sessionId) == [third.sessionId, second.sessionId])

        let ended = try #require(try await repository.endSession(sessionId: third.sessionId, reason: .admin))
        #expect(ended.memberId == member && ended.ended == [third.sessionId])
        let again = try #require(try await repository.endSession(sessionId: third.sessionId, reason: .admin))
        #expect(again.memberId == member && again.ended.isEmpty)
        #expect(try await repository.endSession(sessionId: UUID().uuidString.lowercased(), reason: .admin) == nil)
        #expect(try await repository.adminSessions(memberId: member, limit: 10).first?.endReason == "admin")
        #expect(try await repository.sessions(memberId: member).map(\.sessionId) == [second.sessionId])
    }
}
