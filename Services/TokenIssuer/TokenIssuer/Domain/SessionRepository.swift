import Contracts
import Foundation

/// Where sessions and refresh tokens are kept, as the issuer's use cases need them: PostgreSQL
/// (`SessionStore`) in the service, memory in unit tests. The rules that act on locked rows (a login's
/// replacement of the device's session, a refresh's rotation and reuse, a deleted member's refusal) are the
/// store's, in one statement each; what their outcomes mean is this folder's (``RefreshOutcome``).
protocol SessionRepository: Sendable {
    /// Ends the member's session on `deviceId`, if any, and starts `sessionId` with a random token secret (`secret`, from
    /// tests only, which make tags of their own), signed in with its provider at
    /// `signedInAt` (seconds since 1970, at most a minute ahead) from the app `client`, at generation 0 (its first
    /// refresh token, ``RefreshToken``); when `sessionId` exists already (another attempt of the same login came
    /// first), it is returned as it stands (its generation, and the tag under the secret it was started with) while
    /// it is live, the member's device's and started within two minutes, and nothing is replaced. `UNAUTHORIZED` when the member was deleted, or
    /// `sessionId` has ended since; `MEMBER_SUSPENDED` while the member's suspension holds.
    func startSession(memberId: Int64, deviceId: String, provider: Provider, signedInAt: Int64, client: SessionClient,
                      sessionId: UUID, secret: [UInt8]?) async throws -> StartedSession
    /// Records that the member was deleted, so no session starts for it again, and ends its live sessions;
    /// returns the IDs it ended. Idempotent.
    func endDeletedMember(_ memberId: Int64) async throws -> [String]
    /// Rotates the session's refresh token of `generation` (its MAC checked) to the next, as ``RefreshOutcome``
    /// tells: the first use moves the session on, a duplicate inside the grace window gets the same generation, an
    /// older one ends the session; a token whose `tag` is not that generation's of the session is `unknown` and
    /// changes nothing.
    func rotate(sessionId: UUID, generation: Int64, tag: [UInt8], deviceId: String?) async throws -> RefreshRotation
    /// Rotates a token issued before generations into its session's next generation; a duplicate of a rotation
    /// those releases made gets its successor under `secret` (``LegacyRefreshToken/successor(secret:)``).
    func rotateLegacy(_ token: LegacyRefreshToken, deviceId: String?, secret: [UInt8]) async throws -> RefreshRotation
    /// Ends the member's session `sessionId` if it is live; returns the IDs it ended (none or one).
    func endSession(memberId: Int64, sessionId: String, reason: SessionEndReason) async throws -> [String]
    /// Ends every live session of the member, or only those that signed in with `provider`; with `startedBefore`,
    /// only those started by then (an event's time: a copy of it sent again later ends no session started since).
    func endSessions(memberId: Int64, provider: Provider?, reason: SessionEndReason, startedBefore: Date?) async throws -> [String]
    /// The member's sessions (of `provider`, if given) ended for `reason` within `window`, whoever ended them.
    func ended(memberId: Int64, provider: Provider?, reason: SessionEndReason, within window: Duration) async throws -> [String]
    /// Sessions ended within `window`, in the order they ended, after the cursor `after`, at most `limit`.
    func endedSessions(within window: Duration, after: (micros: Int64, id: UUID)?, limit: Int) async throws
        -> [(id: String, endedAt: Date, cursor: String)]
    /// The member's live sessions, most recently used first.
    func sessions(memberId: Int64) async throws -> [SessionSummary]
    /// Applies the member-service's suspension change when `generation` is newer than the one held (a late or
    /// repeated change changes nothing): suspended, the member's live sessions end (`suspended`) and none starts
    /// until a newer change lifts it, the starts and this change taking turns on the member. Answers with the
    /// sessions the suspension in force ended within `window`, whoever applied it.
    func applySuspension(memberId: Int64, suspended: Bool, generation: Int64, within window: Duration) async throws -> SuspensionChange
    /// The member's sessions, live and ended (as long as they are kept), newest first, at most `limit`.
    func adminSessions(memberId: Int64, limit: Int) async throws -> [AdminSession]
    /// Ends the session `sessionId`, whoever's it is, for `reason`: its member and the IDs this call ended (empty
    /// when it had ended already), or nil when there is no such session.
    func endSession(sessionId: String, reason: SessionEndReason) async throws -> (memberId: Int64, ended: [String])?
}

/// What a suspension change came to (``SessionRepository/applySuspension(memberId:suspended:generation:within:)``).
struct SuspensionChange: Sendable, Equatable {
    /// Whether the change was newer than the one held, and so applied.
    let applied: Bool
    /// Whether the member is suspended now: by this change, or by the newer one held.
    let suspended: Bool
    /// The sessions the suspension in force ended within the window asked for, by this change or an earlier
    /// delivery of it; empty when the member is not suspended.
    let sessionIds: [String]
}

/// What a refresh attempt came to, with the session and successor when the outcome grants them.
struct RefreshRotation: Sendable {
    let outcome: RefreshOutcome
    /// The session, its member, when it signed in with its provider (seconds since 1970) and the successor.
    let grant: (sessionId: String, memberId: Int64, signedInAt: Int64, successor: RefreshSuccessor)?
}

/// A session a login started, or found started by an earlier attempt of it: the refresh token it hands the app is
/// the session's `generation` with its `tag`.
struct StartedSession: Sendable, Equatable {
    let id: String
    let generation: Int64
    let tag: [UInt8]
}

/// The token a grant hands the app.
enum RefreshSuccessor: Sendable, Equatable {
    /// The session's token of this generation, with its tag.
    case generation(Int64, tag: [UInt8])
    /// The successor a release before generations stored for a token it rotated (a duplicate of that rotation).
    case legacy(String)
}
