import Authentication
import Contracts
import Foundation
import JSON
import Logging
import Rules
import Runtime

/// What the issuer's endpoints do, one method per endpoint; `TokenIssuerServer` wires them to NATS.
struct IssuerHandlers: Sendable {
    /// The sessions and refresh tokens (PostgreSQL's ``SessionStore`` in the service).
    let repository: any SessionRepository
    let tokens: AccessTokens
    let keys: any SigningKeyProvider
    let outbox: Wakeup
    /// The keys refresh tokens are made and checked with.
    let refreshKeys: any RefreshTokenKeyProvider
    /// What the releases before generations derived their successors with (``LegacyRefreshToken``).
    let successorSecret: [UInt8]
    let configuration: TokenIssuerConfiguration
    /// The check of the access token each session command carries: the member's own proof.
    let proof: MemberProof
    let logger: Logger

    func issue(_ request: IssueTokensRequest) async throws -> TokenPair {
        guard request.memberId > 0 else { throw ServiceFailure.invalidRequest("memberId must be positive.") }
        try Field.deviceId(request.deviceId)
        // The provider's sign-in (its ID token's iat), never later than now: the session keeps it as every
        // token's auth_time, so a provider token replayed ten minutes on makes no recent sign-in.
        let now = Int64(Date().timeIntervalSince1970)
        let signedInAt = min(request.signedInAt ?? now, now)
        // Every attempt of one login names the same session: the later one gets it back.
        let keys = refreshKeys.current
        let sessionId = try request.attemptKey.map { key in
            try LoginRequest.checkAttemptKey(key)
            return RefreshTokenKeys.session(ofLogin: key, memberId: request.memberId, deviceId: request.deviceId)
        } ?? UUID()
        let client = SessionClient(platform: request.platform, appVersion: request.appVersion)
        let started = try await repository.startSession(memberId: request.memberId, deviceId: request.deviceId,
                                                        provider: request.provider, signedInAt: signedInAt, client: client,
                                                        sessionId: sessionId, secret: nil)
        // The device's previous session, if any, ended in the same transaction.
        outbox.signal()
        let token = keys.token(sessionId: sessionId, tag: started.tag, generation: started.generation)
        var pair = try await tokens.pair(memberId: request.memberId, sessionId: started.id, authTime: signedInAt, refreshToken: token.value)
        pair.isExistingMember = request.isExistingMember
        return pair
    }

    func refresh(_ request: RefreshTokensRequest) async throws -> TokenPair {
        try Field.refresh(token: request.refreshToken, deviceId: request.deviceId)
        let keys = refreshKeys.current
        let rotation: RefreshRotation
        switch keys.read(request.refreshToken) {
        case .current(let token):
            rotation = try await repository.rotate(sessionId: token.sessionId, generation: token.generation, tag: token.tag,
                                                   deviceId: request.deviceId)
        case .legacy(let token):
            rotation = try await repository.rotateLegacy(token, deviceId: request.deviceId, secret: successorSecret)
        case nil:
            // Not a token of ours (its MAC is wrong, or it is no token at all): nothing is read, nothing ends.
            throw ServiceFailure(.invalidRefreshToken, "The refresh token is not valid.")
        }
        if rotation.outcome.endedSession {
            outbox.signal()
            logger.notice("refresh token reused; session ended")
        }
        if let failure = rotation.outcome.failure { throw failure }
        guard let grant = rotation.grant else { throw ServiceFailure.internal }
        let successor: String
        switch grant.successor {
        case .generation(let generation, let tag):
            guard let sessionId = UUID(uuidString: grant.sessionId) else { throw ServiceFailure.internal }
            successor = keys.token(sessionId: sessionId, tag: tag, generation: generation).value
        case .legacy(let token):
            successor = token
        }
        return try await tokens.pair(memberId: grant.memberId, sessionId: grant.sessionId, authTime: grant.signedInAt, refreshToken: successor)
    }

    func logout(_ request: LogoutRequest) async throws -> SessionsEnded {
        let claims = try await proof.claims(of: request.accessToken, memberId: request.memberId)
        guard claims.sid == request.sessionId else {
            throw ServiceFailure(.unauthorized, "The access token is not of this session.")
        }
        let ended = try await repository.endSession(memberId: request.memberId, sessionId: request.sessionId, reason: .logout)
        return ended.isEmpty ? SessionsEnded(sessionIds: []) : sessionsEnded(ended, memberId: request.memberId, reason: .logout)
    }

    func logoutAll(_ request: LogoutAllRequest) async throws -> SessionsEnded {
        try await proof.claims(of: request.accessToken, memberId: request.memberId)
        let ended = try await repository.endSessions(memberId: request.memberId, provider: nil, reason: .logoutAll, startedBefore: nil)
        return sessionsEnded(ended, memberId: request.memberId, reason: .logoutAll)
    }

    func endSession(_ request: EndSessionRequest) async throws -> SessionsEnded {
        try await proof.claims(of: request.accessToken, memberId: request.memberId)
        let ended = try await repository.endSession(memberId: request.memberId, sessionId: request.sessionId, reason: .revoked)
        guard !ended.isEmpty else { throw ServiceFailure(.notFound, "No such session.") }
        return sessionsEnded(ended, memberId: request.memberId, reason: .revoked)
    }

    /// Answers with every session the deletion ended, including those the `member.deleted` consumer
    /// (``SessionEventsConsumer``) ended first: the gateway refuses their access tokens from the answer.
    /// Only the member-service's identity may send it, once it deleted the member.
    func endDeletedMember(_ request: DeletedMemberRequest) async throws -> SessionsEnded {
        try Self.checkMember(request.memberId)
        let ended = try await repository.endDeletedMember(request.memberId)
        var reply = sessionsEnded(ended, memberId: request.memberId, reason: .memberDeleted)
        reply.sessionIds = try await repository.ended(memberId: request.memberId, provider: nil, reason: .memberDeleted, within: configuration.accessTokenTTL)
        return reply
    }

    /// Answers with every session of the identity that ended, including those the `identity.unlinked`
    /// consumer ended first (the member-service's event can arrive before this request).
    func endIdentitySessions(_ request: EndIdentitySessionsRequest) async throws -> SessionsEnded {
        try Self.checkMember(request.memberId)
        let ended = try await repository.endSessions(memberId: request.memberId, provider: request.provider, reason: .identityEnded, startedBefore: nil)
        var reply = sessionsEnded(ended, memberId: request.memberId, reason: .identityEnded)
        reply.sessionIds = try await repository.ended(memberId: request.memberId, provider: request.provider, reason: .identityEnded,
                                                 within: configuration.accessTokenTTL)
        return reply
    }

    /// Applies the member-service's suspension or its lifting, when newer than the one held, and answers with the
    /// sessions the suspension in force ended, including those the `member.suspended` consumer ended first:
    /// the gateway refuses their access tokens from the answer. Only the member-service's identity may send it,
    /// once it committed the change. A late or repeated change changes nothing.
    func memberSuspension(_ request: MemberSuspensionRequest) async throws -> SessionsEnded {
        try Self.checkMember(request.memberId)
        guard request.generation >= 0 else { throw ServiceFailure.invalidRequest("generation must not be negative.") }
        let change = try await applySuspension(memberId: request.memberId, suspended: request.suspended, generation: request.generation,
                                               source: "call")
        return SessionsEnded(sessionIds: change.sessionIds, tokensExpireAt: tokensExpireAt)
    }

    /// Applies a suspension change, from the member-service's call or its event (``SessionEventsConsumer``), and
    /// wakes the outbox when it ended sessions (their `session.ended` events wait there).
    func applySuspension(memberId: Int64, suspended: Bool, generation: Int64, source: String) async throws -> SuspensionChange {
        let change = try await repository.applySuspension(memberId: memberId, suspended: suspended, generation: generation,
                                                          within: configuration.accessTokenTTL)
        if change.applied {
            if change.suspended { outbox.signal() }
            logger.info(change.suspended ? "member suspended; sessions ended" : "member's suspension lifted",
                        ["member.id": String(memberId), "suspension.generation": String(generation), "suspension.source": source,
                         "sessions.count": String(change.sessionIds.count)])
        }
        return change
    }

    /// A member's sessions, live and ended, newest first, the newest ``adminSessionsLimit`` at most; for the
    /// admin-api alone (its NATS identity is the proof), for a named admin.
    func adminSessions(_ request: AdminMemberRequest) async throws -> AdminSessionList {
        try request.actor.check(requiringReason: false)
        try Self.checkMember(request.memberId)
        let sessions = try await repository.adminSessions(memberId: request.memberId, limit: Self.adminSessionsLimit)
        // Every admin read is told here too, not only in the admin-api's own trail: whoever holds its seed reads no
        // member unseen.
        logger.info("admin read a member's sessions", ["admin.name": request.actor.admin, "member.id": String(request.memberId)])
        return AdminSessionList(sessions: sessions)
    }

    /// The most sessions ``adminSessions(_:)`` answers: a member has one live session a device, and ended ones
    /// are kept about as long as their access tokens live.
    static let adminSessionsLimit = 200

    /// Ends one session by ID (`admin`), whoever's it is; for the admin-api alone, for a named admin with a
    /// reason. `NOT_FOUND` when there is no such session; a session that had ended already answers no IDs.
    func adminEndSession(_ request: AdminEndSessionRequest) async throws -> AdminSessionEnded {
        try request.actor.check(requiringReason: true)
        guard request.sessionId.utf8.count == 36, let id = UUID(uuidString: request.sessionId) else {
            throw ServiceFailure.invalidRequest("sessionId must be a UUID.")
        }
        guard let result = try await repository.endSession(sessionId: id.uuidString.lowercased(), reason: .admin) else {
            throw ServiceFailure(.notFound, "No such session.")
        }
        guard !result.ended.isEmpty else { return AdminSessionEnded(memberId: result.memberId, sessionsEnded: SessionsEnded(sessionIds: [])) }
        outbox.signal()
        logger.info("session ended by an admin", ["admin.name": request.actor.admin, "member.id": String(result.memberId),
                                                  "session.id": result.ended[0]])
        return AdminSessionEnded(memberId: result.memberId, sessionsEnded: SessionsEnded(sessionIds: result.ended, tokensExpireAt: tokensExpireAt))
    }

    func sessions(_ request: ListSessionsRequest) async throws -> SessionList {
        try await proof.claims(of: request.accessToken, memberId: request.memberId)
        return SessionList(sessions: try await repository.sessions(memberId: request.memberId))
    }

    /// A page of the sessions whose access tokens may still be live though they ended.
    func endedSessions(_ request: EndedSessionsRequest) async throws -> EndedSessionsPage {
        guard (1...1_000).contains(request.limit) else { throw ServiceFailure.invalidRequest("limit must be 1 to 1000.") }
        var after: (micros: Int64, id: UUID)?
        if let cursor = request.after {
            let parts = cursor.split(separator: ":", maxSplits: 1)
            // A time from 1970 to a day ahead: any other is no page's end (and would overflow the database's interval).
            let latest = Int64((Date().timeIntervalSince1970 + 86_400) * 1_000_000)
            guard cursor.utf8.count <= 64, parts.count == 2, let micros = Int64(parts[0]), (0...latest).contains(micros),
                  let id = UUID(uuidString: String(parts[1])) else {
                throw ServiceFailure.invalidRequest("after must be a page's next.")
            }
            after = (micros, id)
        }
        let ttl = configuration.accessTokenTTL.timeInterval
        let rows = try await repository.endedSessions(within: configuration.accessTokenTTL, after: after, limit: request.limit)
        return EndedSessionsPage(sessions: rows.map { EndedSession(sessionId: $0.id, tokensExpireAt: $0.endedAt.addingTimeInterval(ttl), endedAt: $0.endedAt) },
                                 next: rows.count == request.limit ? rows.last?.cursor : nil)
    }

    func rotateKeys(_ request: RotateSigningKeysRequest) async throws -> SigningKeyRotation {
        guard await !keys.fromFile else {
            throw ServiceFailure.invalidRequest("The signing keys come from SIGNING_KEY_FILE; rotate them by adding a key file.")
        }
        guard let rotation = try await keys.rotate() else { throw ServiceFailure.internal }
        return rotation
    }

    func jwks(_ request: AccessTokenKeysRequest) async throws(ServiceFailure) -> AccessTokenKeys {
        guard let jwks = try? JSONValue(encoding: await keys.published()) else { throw ServiceFailure.internal }
        return AccessTokenKeys(jwks: jwks, issuer: configuration.issuer, audience: configuration.audience)
    }

    private func sessionsEnded(_ ended: [String], memberId: Int64, reason: SessionEndReason) -> SessionsEnded {
        if !ended.isEmpty {
            outbox.signal()
            logger.info("sessions ended", ["member.id": String(memberId), "session.end_reason": reason.rawValue,
                                           "sessions.count": String(ended.count)])
        }
        return SessionsEnded(sessionIds: ended, tokensExpireAt: tokensExpireAt)
    }

    /// When the access tokens of a session that ends now have all expired: a gateway keeps it on its ended list until then.
    private var tokensExpireAt: Date { Date().addingTimeInterval(configuration.accessTokenTTL.timeInterval) }

    private static func checkMember(_ memberId: Int64) throws(ServiceFailure) {
        guard memberId > 0 else { throw ServiceFailure.invalidRequest("memberId must be positive.") }
    }

}
