import Contracts
import Foundation

/// Where sessions and refresh tokens are kept, as the issuer's use cases need them: PostgreSQL
/// (`SessionStore`) in the service, memory in unit tests. The rules that act on locked rows (a login's
/// replacement of the device's session, a refresh's rotation and reuse, a deleted member's refusal) are the
/// store's, in one statement each; what their outcomes mean is this folder's (``RefreshOutcome``).
protocol SessionRepository: Sendable {
    /// Ends the member's session on `deviceId`, if any, and starts one that signed in with its provider at
    /// `signedInAt` (seconds since 1970, at most a minute ahead) with `token` as its first refresh token; when a
    /// session holds `token` already (another attempt of the same login came first), that one is returned while
    /// it is live and the member's device's, and nothing is replaced. `UNAUTHORIZED` when the member was deleted,
    /// or the session that holds `token` has ended since.
    func startSession(memberId: Int64, deviceId: String, provider: Provider, signedInAt: Int64,
                      token: RefreshToken) async throws -> (sessionId: String, token: RefreshToken)
    /// Records that the member was deleted, so no session starts for it again, and ends its live sessions;
    /// returns the IDs it ended. Idempotent.
    func endDeletedMember(_ memberId: Int64) async throws -> [String]
    /// Rotates `token` to its successor under `secret` (``RefreshToken/successor(secret:)``), as
    /// ``RefreshOutcome`` tells.
    func rotate(_ token: RefreshToken, deviceId: String?, secret: [UInt8]) async throws -> RefreshRotation
    /// Ends the member's session `sessionId` if it is live; returns the IDs it ended (none or one).
    func endSession(memberId: Int64, sessionId: String, reason: SessionEndReason) async throws -> [String]
    /// Ends every live session of the member, or only those that signed in with `provider`.
    func endSessions(memberId: Int64, provider: Provider?, reason: SessionEndReason) async throws -> [String]
    /// The member's sessions (of `provider`, if given) ended for `reason` within `window`, whoever ended them.
    func ended(memberId: Int64, provider: Provider?, reason: SessionEndReason, within window: Duration) async throws -> [String]
    /// Sessions ended within `window`, in the order they ended, after the cursor `after`, at most `limit`.
    func endedSessions(within window: Duration, after: (micros: Int64, id: UUID)?, limit: Int) async throws
        -> [(id: String, endedAt: Date, cursor: String)]
    /// The member's live sessions, most recently used first.
    func sessions(memberId: Int64) async throws -> [SessionSummary]
}

/// What a refresh attempt came to, with the session and successor when the outcome grants them.
struct RefreshRotation: Sendable {
    let outcome: RefreshOutcome
    /// The session, its member, when it signed in with its provider (seconds since 1970) and the successor token.
    let grant: (sessionId: String, memberId: Int64, signedInAt: Int64, token: RefreshToken)?
}
