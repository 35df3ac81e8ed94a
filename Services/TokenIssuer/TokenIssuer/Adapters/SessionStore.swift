import Contracts
import Crypto
import Foundation
import Postgres

/// Sessions and refresh tokens in the `issuer` schema (``SessionRepository``).
struct SessionStore: SessionRepository {
    let database: PostgresClient
    let refreshTokenTTL: Duration
    let reuseGrace: Duration

    /// Ends the member's session on `deviceId`, if any, and starts `sessionId` at generation 0, signed in with its
    /// provider at `signedInAt` (seconds since 1970) from the app `client`, and returns it. `UNAUTHORIZED` when the
    /// member was deleted: a login that found it just before does not outlive it; `MEMBER_SUSPENDED` while it is
    /// suspended (`issuer.open_session` raises SQLSTATE `IS001`). When `sessionId` exists already (another attempt of
    /// the same login came first), that session is returned as it stands while live and at most two minutes old, and
    /// nothing is replaced.
    func startSession(memberId: Int64, deviceId: String, provider: Provider,
                      signedInAt: Int64 = Int64(Date().timeIntervalSince1970), client: SessionClient = .unknown,
                      sessionId: UUID = UUID(), secret: [UInt8]? = nil) async throws -> StartedSession {
        let rows: PostgresRows
        do {
            rows = try await database.query(
                """
                SELECT id, generation, tag
                  FROM issuer.open_session(p_member => \(memberId), p_device => \(deviceId), p_provider => \(provider.rawValue),
                                           p_ttl_seconds => \(refreshTokenTTL.components.seconds),
                                           p_signed_in_at => \(signedInAt), p_platform => \(client.platform),
                                           p_app_version => \(client.appVersion), p_session => \(sessionId),
                                           p_token_secret => \(secret))
                """)
        } catch let error as PostgresError where error.sqlState == Self.memberSuspendedState {
            throw ServiceFailure.memberSuspended
        }
        guard let row = rows.first else { throw ServiceFailure(.unauthorized, "The member no longer exists; sign in again.") }
        return StartedSession(id: try row.uuid("id").uuidString.lowercased(), generation: try row.int("generation"),
                              tag: try row.bytes("tag"))
    }

    /// The SQLSTATE `issuer.open_session` raises for a suspended member.
    static let memberSuspendedState = "IS001"

    /// Records that the member was deleted, so no session starts for it again, and ends its live
    /// sessions; returns the IDs it ended. Idempotent.
    func endDeletedMember(_ memberId: Int64) async throws -> [String] {
        let rows = try await database.query("SELECT id FROM issuer.end_deleted_member(\(memberId)) AS id")
        return try rows.map { try $0.uuid("id").uuidString.lowercased() }
    }

    /// Rotates the session's token of `generation`: one UPDATE of the session row when it is that generation's and
    /// live (a HOT update: no column it writes is indexed); otherwise `issuer.refresh_second_look` tells a replay,
    /// a reuse (which ends the session) and the refusals apart, with the row locked (see `RefreshOutcome`).
    func rotate(sessionId: UUID, generation: Int64, tag: [UInt8], deviceId: String?) async throws -> RefreshRotation {
        let id = sessionId.uuidString.lowercased()
        let rows = try await database.query(
            """
            UPDATE issuer.sessions SET generation = generation + 1, rotated_at = now(), last_used_at = now(),
                                       expires_at = now() + make_interval(secs => \(refreshTokenTTL.components.seconds))
             WHERE id = \(sessionId) AND generation = \(generation) AND issuer.token_tag(token_secret, generation) = \(tag)
               AND ended_at IS NULL AND expires_at > now() AND device_id = coalesce(\(deviceId)::text, device_id)
            RETURNING member_id, floor(extract(epoch FROM coalesce(signed_in_at, created_at)))::bigint AS signed_in_at,
                      issuer.token_tag(token_secret, generation) AS tag
            """)
        if let row = rows.first {
            return RefreshRotation(outcome: .rotated, grant: (id, try row.int("member_id"), try row.int("signed_in_at"),
                                                              .generation(generation + 1, tag: try row.bytes("tag"))))
        }
        let look = try await database.query(
            """
            SELECT outcome, member_id, signed_in_at, generation, tag FROM issuer.refresh_second_look(
                p_session => \(sessionId), p_generation => \(generation), p_tag => \(tag), p_device => \(deviceId),
                p_grace_seconds => \(reuseGrace.components.seconds), p_ttl_seconds => \(refreshTokenTTL.components.seconds))
            """)
        guard let row = look.first else { throw ServiceFailure.internal }
        let outcome = try Self.outcome(row)
        guard outcome.failure == nil else { return RefreshRotation(outcome: outcome, grant: nil) }
        return RefreshRotation(outcome: outcome, grant: (id, try row.int("member_id"), try row.int("signed_in_at"),
                                                         .generation(try row.int("generation"), tag: try row.bytes("tag"))))
    }

    /// Rotates a token issued before generations (`issuer.rotate_legacy_refresh_token`, one round trip).
    func rotateLegacy(_ token: LegacyRefreshToken, deviceId: String?, secret: [UInt8]) async throws -> RefreshRotation {
        let successor = token.successor(secret: secret)
        let rows = try await database.query(
            """
            SELECT outcome, session_id, member_id, signed_in_at, generation, tag FROM issuer.rotate_legacy_refresh_token(
                p_token_hash => \(token.hash), p_successor_hash => \(successor.hash), p_device => \(deviceId),
                p_grace_seconds => \(reuseGrace.components.seconds), p_ttl_seconds => \(refreshTokenTTL.components.seconds))
            """)
        guard let row = rows.first else { throw ServiceFailure.internal }
        let outcome = try Self.outcome(row)
        guard outcome.failure == nil else { return RefreshRotation(outcome: outcome, grant: nil) }
        let sessionId = try row.uuid("session_id").uuidString.lowercased()
        let next: RefreshSuccessor = row.isNull("generation") ? .legacy(successor.value)
            : .generation(try row.int("generation"), tag: try row.bytes("tag"))
        return RefreshRotation(outcome: outcome, grant: (sessionId, try row.int("member_id"), try row.int("signed_in_at"), next))
    }

    private static func outcome(_ row: PostgresRow) throws -> RefreshOutcome {
        let text = try row.string("outcome")
        guard let outcome = RefreshOutcome(rawValue: text) else { throw IssuerError.unexpectedStatus(text) }
        return outcome
    }

    /// Ends the member's session `sessionId` if it is live; returns the IDs it ended (none or one).
    func endSession(memberId: Int64, sessionId: String, reason: SessionEndReason) async throws -> [String] {
        guard let id = UUID(uuidString: sessionId) else { return [] }
        let rows = try await database.query(
            """
            UPDATE issuer.sessions SET ended_at = clock_timestamp(), end_reason = \(reason.rawValue)
             WHERE id = \(id) AND member_id = \(memberId) AND ended_at IS NULL RETURNING id
            """)
        return try rows.map { try $0.uuid("id").uuidString.lowercased() }
    }

    /// Ends every live session of the member, or only those that signed in with `provider`.
    func endSessions(memberId: Int64, provider: Provider? = nil, reason: SessionEndReason, startedBefore: Date? = nil) async throws -> [String] {
        let rows = try await database.query(
            """
            UPDATE issuer.sessions SET ended_at = clock_timestamp(), end_reason = \(reason.rawValue)
             WHERE member_id = \(memberId) AND (\(provider?.rawValue)::text IS NULL OR provider = \(provider?.rawValue)) AND ended_at IS NULL
               AND (\(startedBefore)::timestamptz IS NULL OR created_at <= \(startedBefore)) RETURNING id
            """)
        return try rows.map { try $0.uuid("id").uuidString.lowercased() }
    }

    /// The member's sessions (only those that signed in with `provider`, if given) ended for `reason` in the
    /// last `window` by the database's clock, whoever ended them: those whose access tokens may still be live.
    func ended(memberId: Int64, provider: Provider? = nil, reason: SessionEndReason, within window: Duration) async throws -> [String] {
        let rows = try await database.query(
            """
            SELECT id FROM issuer.sessions
             WHERE member_id = \(memberId) AND (\(provider?.rawValue)::text IS NULL OR provider = \(provider?.rawValue))
               AND end_reason = \(reason.rawValue) AND ended_at >= now() - make_interval(secs => \(window.components.seconds))
            """)
        return try rows.map { try $0.uuid("id").uuidString.lowercased() }
    }

    /// Sessions that ended within `window` (by the database's clock), in the order they ended, after the
    /// cursor `after` (the microseconds of an `ended_at` and a session ID, as the last page's `next`), at most
    /// `limit`: the ID, when it ended, and the cursor after it.
    func endedSessions(within window: Duration, after: (micros: Int64, id: UUID)?, limit: Int) async throws
        -> [(id: String, endedAt: Date, cursor: String)] {
        // The row comparison makes each page an index range of sessions_ended_order, not a scan from the
        // window's start; the first page starts before every session.
        let rows = try await database.query(
            """
            SELECT id, ended_at, (extract(epoch FROM ended_at) * 1000000)::bigint AS micros FROM issuer.sessions
             WHERE ended_at IS NOT NULL AND ended_at >= now() - make_interval(secs => \(window.components.seconds))
               AND (ended_at, id) > (coalesce(timestamptz 'epoch' + \(after?.micros)::bigint * interval '1 microsecond', '-infinity'),
                                     coalesce(\(after?.id)::uuid, '00000000-0000-0000-0000-000000000000'))
             ORDER BY ended_at, id LIMIT \(Int64(limit))
            """)
        return try rows.map { row in
            let id = try row.uuid("id").uuidString.lowercased()
            return (id, try row.date("ended_at"), "\(try row.int("micros")):\(id)")
        }
    }

    /// The member's live sessions, most recently used first.
    func sessions(memberId: Int64) async throws -> [SessionSummary] {
        let rows = try await database.query(
            """
            SELECT id, device_id, created_at, last_used_at, platform, app_version FROM issuer.sessions
             WHERE member_id = \(memberId) AND ended_at IS NULL AND expires_at > now()
             ORDER BY last_used_at DESC, created_at DESC
            """)
        return try rows.map { row in
            SessionSummary(sessionId: try row.uuid("id").uuidString.lowercased(), deviceId: try row.string("device_id"),
                           createdAt: try row.date("created_at"), lastUsedAt: try row.date("last_used_at"),
                           platform: try row.optionalString("platform"), appVersion: try row.optionalString("app_version"))
        }
    }

    /// Applies a suspension change in one round trip (`issuer.apply_member_suspension`, under the member's lock).
    func applySuspension(memberId: Int64, suspended: Bool, generation: Int64, within window: Duration) async throws -> SuspensionChange {
        let rows = try await database.query(
            """
            SELECT applied, suspended, session_id FROM issuer.apply_member_suspension(
                p_member => \(memberId), p_suspended => \(suspended), p_generation => \(generation),
                p_window_seconds => \(window.components.seconds))
            """)
        guard let first = rows.first else { throw ServiceFailure.internal }
        let ended = try rows.compactMap { try $0.optionalUUID("session_id")?.uuidString.lowercased() }
        return SuspensionChange(applied: try first.bool("applied"), suspended: try first.bool("suspended"), sessionIds: ended)
    }

    /// The member's sessions, live and ended (as long as ``cleanUp(endedRetention:batchSize:)`` keeps them),
    /// newest first, at most `limit` (an index range of `sessions_member_created`).
    func adminSessions(memberId: Int64, limit: Int) async throws -> [AdminSession] {
        let rows = try await database.query(
            """
            SELECT id, device_id, provider, platform, app_version, created_at, last_used_at, ended_at, end_reason
              FROM issuer.sessions WHERE member_id = \(memberId)
             ORDER BY created_at DESC, id DESC LIMIT \(Int64(limit))
            """)
        return try rows.map { row in
            let provider = try row.string("provider")
            guard let known = Provider(rawValue: provider) else { throw IssuerError.unexpectedStatus(provider) }
            return AdminSession(sessionId: try row.uuid("id").uuidString.lowercased(), deviceId: try row.string("device_id"),
                                provider: known, platform: try row.optionalString("platform"),
                                appVersion: try row.optionalString("app_version"), createdAt: try row.date("created_at"),
                                lastUsedAt: try row.date("last_used_at"), endedAt: try row.optionalDate("ended_at"),
                                endReason: try row.optionalString("end_reason"))
        }
    }

    /// Ends the session `sessionId` if it is live, whoever's it is: its member and the IDs ended (none when it
    /// had ended), or nil when there is no such session (or `sessionId` is no UUID).
    func endSession(sessionId: String, reason: SessionEndReason) async throws -> (memberId: Int64, ended: [String])? {
        guard let id = UUID(uuidString: sessionId) else { return nil }
        let ended = try await database.query(
            """
            UPDATE issuer.sessions SET ended_at = clock_timestamp(), end_reason = \(reason.rawValue)
             WHERE id = \(id) AND ended_at IS NULL RETURNING member_id
            """)
        if let row = ended.first { return (try row.int("member_id"), [id.uuidString.lowercased()]) }
        // Ended already, or none: only then a second look.
        let rows = try await database.query("SELECT member_id FROM issuer.sessions WHERE id = \(id)")
        return try rows.first.map { (try $0.int("member_id"), []) }
    }

    /// Deletes, in batches, sessions that ended longer than `endedRetention` ago (those a suspension in force ended
    /// stay until they expire), refresh tokens past their expiry and deleted members older than a refresh token lives;
    /// and, at most every `expiredScanInterval` across all replicas, sessions that expired. The ended ones are an
    /// index range (`sessions_ended`); the expired ones a scan of the table, since no index covers `expires_at`,
    /// which every refresh writes (an index there would make each refresh write an index entry). Only one replica
    /// cleans at a time: a replica that finds the lock taken leaves the work to the holder. Returns the rows deleted.
    func cleanUp(endedRetention: Duration, expiredScanInterval: Duration = .seconds(600), batchSize: Int = 1_000) async throws -> Int {
        var total = 0
        var scanExpired: Bool?
        while !Task.isCancelled {
            let deleted = try await database.withTransaction { connection -> (counts: [Int], scanned: Bool)? in
                let lock = try await connection.query("SELECT pg_try_advisory_xact_lock(hashtext('issuer.clean-up')) AS locked")
                guard try lock.first?.bool("locked") == true else { return nil }
                // Whether this round scans for expired sessions: the first batch claims the scan for the interval.
                let scanned: Bool
                if let decided = scanExpired {
                    scanned = decided
                } else {
                    let claim = try await connection.query(
                        """
                        INSERT INTO issuer.clean_up_runs AS r (job, ran_at) VALUES ('expired-sessions', now())
                        ON CONFLICT (job) DO UPDATE SET ran_at = now()
                         WHERE r.ran_at <= now() - make_interval(secs => \(expiredScanInterval.components.seconds))
                        RETURNING job
                        """)
                    scanned = !claim.isEmpty
                }
                // A session a suspension ended stays while the suspension holds (until it expires), so its refresh
                // answers MEMBER_SUSPENDED rather than an unknown token.
                let ended = try await connection.query(
                    """
                    DELETE FROM issuer.sessions WHERE id IN (
                        SELECT s.id FROM issuer.sessions s
                         WHERE s.ended_at < now() - make_interval(secs => \(endedRetention.components.seconds))
                           AND NOT (s.end_reason = 'suspended' AND s.expires_at >= now() AND EXISTS (
                               SELECT 1 FROM issuer.member_suspensions m WHERE m.member_id = s.member_id AND m.suspended))
                         LIMIT \(batchSize))
                    """)
                // The condition twice: a refresh that extends a session after the inner select chose it keeps it (the
                // DELETE waits on the refresh's row lock, then checks the row as it now is against its own WHERE only).
                let expired = scanned ? try await connection.query(
                    """
                    DELETE FROM issuer.sessions WHERE id IN (
                        SELECT s.id FROM issuer.sessions s WHERE s.expires_at < now() LIMIT \(batchSize))
                      AND expires_at < now()
                    """).affectedRows : 0
                let tokens = try await connection.query(
                    """
                    DELETE FROM issuer.refresh_tokens WHERE token_hash IN (
                        SELECT token_hash FROM issuer.refresh_tokens WHERE expires_at < now() LIMIT \(batchSize))
                    """)
                // A deleted member is remembered as long as a refresh token lives.
                let members = try await connection.query(
                    """
                    DELETE FROM issuer.deleted_members WHERE member_id IN (
                        SELECT member_id FROM issuer.deleted_members
                         WHERE deleted_at < now() - make_interval(secs => \(refreshTokenTTL.components.seconds)) LIMIT \(batchSize))
                    """)
                return ([ended.affectedRows, expired, tokens.affectedRows, members.affectedRows], scanned)
            }
            guard let deleted else { break }
            // The scan goes on in the next batch only while it finds full batches.
            scanExpired = deleted.scanned && deleted.counts[1] == batchSize
            total += deleted.counts.reduce(0, +)
            // A full batch of any kind: there may be more.
            if !deleted.counts.contains(batchSize) { break }
        }
        return total
    }

    /// The secret `name`, 32 random bytes created once and shared by every replica: `refresh-successor`, which the
    /// releases before generations derived successors with (``LegacyRefreshToken``), and `refresh-token-key`, the
    /// refresh token key when no `REFRESH_TOKEN_KEY_FILE` is set (development: then the database holds it).
    func secret(_ name: String) async throws -> [UInt8] {
        // Made in the database (two random UUIDs, 244 random bits, hashed to 32 bytes), so that no statement log
        // records it as a parameter.
        _ = try await database.query(
            """
            INSERT INTO issuer.secrets (name, value) VALUES (\(name), sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())))
                ON CONFLICT (name) DO NOTHING
            """)
        let rows = try await database.query("SELECT value FROM issuer.secrets WHERE name = \(name)")
        guard let row = rows.first else { throw ServiceFailure.internal }
        return try row.bytes("value")
    }
}
