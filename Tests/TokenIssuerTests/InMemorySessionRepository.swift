import Contracts
import Crypto
import Foundation
import JOSE
@testable import TokenIssuer

/// The token secret the tests' sessions are started with (a login's is random).
let sessionTestSecret = Array(repeating: UInt8(7), count: RefreshTokenKeys.secretBytes)

/// The tag of `generation` of a session started with ``sessionTestSecret``.
func testTag(_ generation: Int64) -> [UInt8] {
    RefreshTokenKeys.tag(secret: sessionTestSecret, generation: generation)
}

/// Sessions and refresh tokens in memory, for the issuer's use cases' tests that need no PostgreSQL. It keeps
/// the repository's contract (``SessionRepositoryContractTests`` runs the same checks against it and against
/// `SessionStore`): the refresh's order of checks and outcomes (`issuer.refresh_second_look`), a login's replacement of the
/// device's session, a deleted member's refusal, a suspension's generations and refusals. Its clock is ``now``,
/// which a test moves. Simpler than the store: one actor, so no lock is needed for a start to see a suspension,
/// and nothing is ever cleaned up. It never held a token of the releases before generations: none is known.
actor InMemorySessionRepository: SessionRepository {
    private struct Session {
        let id: String
        let memberId: Int64
        let deviceId: String
        let provider: Provider
        let signedInAt: Int64
        let client: SessionClient
        let createdAt: Date
        var lastUsedAt: Date
        var expiresAt: Date
        let secret: [UInt8]
        var generation: Int64 = 0
        var rotatedAt: Date?
        var ended: (at: Date, reason: String)?
    }

    private let refreshTokenTTL: TimeInterval
    private let reuseGrace: TimeInterval
    private var sessions: [String: Session] = [:]
    private var deletedMembers: Set<Int64> = []
    /// Each member's suspension mark: whether suspended, the change's generation, when it changed.
    private var suspensions: [Int64: (suspended: Bool, generation: Int64, changedAt: Date)] = [:]
    /// The repository's clock.
    private(set) var now = Date()

    init(refreshTokenTTL: Duration = .seconds(86_400), reuseGrace: Duration = .seconds(10)) {
        self.refreshTokenTTL = refreshTokenTTL.timeInterval
        self.reuseGrace = reuseGrace.timeInterval
    }

    /// Moves the clock on by `interval`.
    func advance(by interval: Duration) {
        now += interval.timeInterval
    }

    /// Why the session ended, or nil while it is live.
    func endReason(_ sessionId: String) -> String? {
        sessions[sessionId]?.ended?.reason
    }

    func startSession(memberId: Int64, deviceId: String, provider: Provider, signedInAt: Int64, client: SessionClient,
                      sessionId: UUID, secret: [UInt8]?) async throws -> StartedSession {
        let secret = secret ?? SecureRandom.bytes(RefreshTokenKeys.secretBytes)
        guard !deletedMembers.contains(memberId) else { throw ServiceFailure(.unauthorized, "The member no longer exists; sign in again.") }
        guard suspensions[memberId]?.suspended != true else { throw ServiceFailure.memberSuspended }
        let id = sessionId.uuidString.lowercased()
        // Another attempt of the same login came first: its session, while it is live and the device's; else nothing.
        if let session = sessions[id] {
            guard session.ended == nil, session.memberId == memberId, session.deviceId == deviceId,
                  now.timeIntervalSince(session.createdAt) < 120 else {
                throw ServiceFailure(.unauthorized, "The member no longer exists; sign in again.")
            }
            return StartedSession(id: id, generation: session.generation,
                                  tag: RefreshTokenKeys.tag(secret: session.secret, generation: session.generation))
        }
        for (other, session) in sessions where session.memberId == memberId && session.deviceId == deviceId && session.ended == nil {
            sessions[other]?.ended = (now, SessionEndReason.replaced.rawValue)
        }
        // A sign-in more than a minute ahead is stored as a minute ahead.
        let signedInAt = min(signedInAt, Int64(now.timeIntervalSince1970) + 60)
        sessions[id] = Session(id: id, memberId: memberId, deviceId: deviceId, provider: provider, signedInAt: signedInAt,
                               client: client, createdAt: now, lastUsedAt: now, expiresAt: now + refreshTokenTTL, secret: secret)
        return StartedSession(id: id, generation: 0, tag: RefreshTokenKeys.tag(secret: secret, generation: 0))
    }

    func endDeletedMember(_ memberId: Int64) async throws -> [String] {
        deletedMembers.insert(memberId)
        return end(.memberDeleted) { $0.memberId == memberId }
    }

    func rotate(sessionId: UUID, generation: Int64, tag: [UInt8], deviceId: String?) async throws -> RefreshRotation {
        guard let session = sessions[sessionId.uuidString.lowercased()], session.generation >= generation,
              RefreshTokenKeys.tag(secret: session.secret, generation: generation) == tag else {
            return RefreshRotation(outcome: .unknown, grant: nil)
        }
        let outcome: RefreshOutcome
        if let ended = session.ended {
            let suspended = ended.reason == SessionEndReason.suspended.rawValue && suspensions[session.memberId]?.suspended == true
            outcome = suspended ? .suspended : .ended
        } else if session.expiresAt <= now {
            outcome = .expired
        } else if let deviceId, deviceId != session.deviceId {
            outcome = .wrongDevice
        } else if session.generation == generation {
            sessions[session.id]?.generation += 1
            sessions[session.id]?.rotatedAt = now
            sessions[session.id]?.lastUsedAt = now
            sessions[session.id]?.expiresAt = now + refreshTokenTTL
            outcome = .rotated
        } else if session.generation == generation + 1, let rotatedAt = session.rotatedAt, rotatedAt > now - reuseGrace {
            outcome = .replayed
        } else {
            sessions[session.id]?.ended = (now, SessionEndReason.reuse.rawValue)
            outcome = .reused
        }
        guard outcome.failure == nil else { return RefreshRotation(outcome: outcome, grant: nil) }
        return RefreshRotation(outcome: outcome, grant: (session.id, session.memberId, session.signedInAt,
                                                         .generation(generation + 1, tag: RefreshTokenKeys.tag(secret: session.secret, generation: generation + 1))))
    }

    func rotateLegacy(_ token: LegacyRefreshToken, deviceId: String?, secret: [UInt8]) async throws -> RefreshRotation {
        RefreshRotation(outcome: .unknown, grant: nil)
    }

    func endSession(memberId: Int64, sessionId: String, reason: SessionEndReason) async throws -> [String] {
        end(reason) { $0.memberId == memberId && $0.id == sessionId }
    }

    func endSessions(memberId: Int64, provider: Provider?, reason: SessionEndReason, startedBefore: Date?) async throws -> [String] {
        end(reason) { session in
            session.memberId == memberId && (provider == nil || session.provider == provider)
                && (startedBefore.map { session.createdAt <= $0 } ?? true)
        }
    }

    func ended(memberId: Int64, provider: Provider?, reason: SessionEndReason, within window: Duration) async throws -> [String] {
        sessions.values.filter {
            $0.memberId == memberId && (provider == nil || $0.provider == provider) && $0.ended?.reason == reason.rawValue
                && $0.ended!.at >= now - window.timeInterval
        }.map(\.id)
    }

    func endedSessions(within window: Duration, after: (micros: Int64, id: UUID)?,
                       limit: Int) async throws -> [(id: String, endedAt: Date, cursor: String)] {
        let ended = sessions.values.compactMap { session -> (id: String, endedAt: Date, micros: Int64)? in
            guard let at = session.ended?.at, at >= now - window.timeInterval else { return nil }
            return (session.id, at, Int64((at.timeIntervalSince1970 * 1_000_000).rounded()))
        }
        let after = after.map { ($0.micros, $0.id.uuidString.lowercased()) } ?? (Int64.min, "")
        return ended.filter { ($0.micros, $0.id) > after }.sorted { ($0.micros, $0.id) < ($1.micros, $1.id) }
            .prefix(limit).map { ($0.id, $0.endedAt, "\($0.micros):\($0.id)") }
    }

    func sessions(memberId: Int64) async throws -> [SessionSummary] {
        sessions.values.filter { $0.memberId == memberId && $0.ended == nil && $0.expiresAt > now }
            .sorted { ($0.lastUsedAt, $0.createdAt) > ($1.lastUsedAt, $1.createdAt) }
            .map { SessionSummary(sessionId: $0.id, deviceId: $0.deviceId, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt,
                                  platform: $0.client.platform, appVersion: $0.client.appVersion) }
    }

    func applySuspension(memberId: Int64, suspended: Bool, generation: Int64, within window: Duration) async throws -> SuspensionChange {
        var applied = false
        if generation > suspensions[memberId]?.generation ?? .min {
            suspensions[memberId] = (suspended, generation, now)
            applied = true
        }
        guard let mark = suspensions[memberId], mark.suspended else { return SuspensionChange(applied: applied, suspended: false, sessionIds: []) }
        _ = end(.suspended) { $0.memberId == memberId }
        let ended = sessions.values.filter {
            $0.memberId == memberId && $0.ended?.reason == SessionEndReason.suspended.rawValue && $0.ended!.at >= mark.changedAt
                && $0.ended!.at >= now - window.timeInterval
        }.map(\.id)
        return SuspensionChange(applied: applied, suspended: true, sessionIds: ended)
    }

    func adminSessions(memberId: Int64, limit: Int) async throws -> [AdminSession] {
        sessions.values.filter { $0.memberId == memberId }.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.prefix(limit).map {
            AdminSession(sessionId: $0.id, deviceId: $0.deviceId, provider: $0.provider, platform: $0.client.platform,
                         appVersion: $0.client.appVersion, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt, endedAt: $0.ended?.at,
                         endReason: $0.ended?.reason)
        }
    }

    func endSession(sessionId: String, reason: SessionEndReason) async throws -> (memberId: Int64, ended: [String])? {
        guard let session = sessions[sessionId.lowercased()] else { return nil }
        return (session.memberId, end(reason) { $0.id == session.id })
    }

    /// Ends the live sessions `matching` picks for `reason`; returns their IDs.
    private func end(_ reason: SessionEndReason, _ matching: (Session) -> Bool) -> [String] {
        let ids = sessions.values.filter { $0.ended == nil && matching($0) }.map(\.id)
        for id in ids { sessions[id]?.ended = (now, reason.rawValue) }
        return ids
    }
}

/// One P-256 key in memory, published and signing, for the issuer's use cases' tests.
struct InMemorySigningKey: SigningKeyProvider {
    let signer: JWTSigner
    let publicKey: JWK

    init(kid: String = "test-key") throws {
        let key = try PrivateKey.generateP256()
        signer = JWTSigner(key: key, kid: kid, algorithm: .ES256)
        publicKey = JWK(publicKey: key.publicKey, kid: kid, alg: .ES256)
    }

    func signer() async throws -> (signer: JWTSigner, expiresBy: Date?) { (signer, nil) }
    func published() async -> JWKSet { JWKSet(keys: [publicKey]) }
    var fromFile: Bool { false }
    func rotate() async throws -> SigningKeyRotation? { nil }
}
