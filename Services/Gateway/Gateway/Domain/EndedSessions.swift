import Collections
import Contracts
import Foundation
import JSON
import Logging
import Metrics
import Synchronization

/// The sessions that ended while their access tokens could still be live: their tokens are refused.
///
/// Every `session.ended` event puts its session on the list until the session's last token expired
/// (plus the leeway). The list is kept in expiry order, so each insert drops the expired entries from
/// the front and never copies the whole. It holds at most `capacity` sessions (`ENDED_SESSIONS_CAPACITY`):
/// beyond that the one whose tokens expire first is forgotten, counted in
/// `access_token_ended_sessions_dropped_total`, and the list fails closed. A forgotten session's tokens
/// were all issued before it ended, so every token issued at or before the latest such end (plus
/// ``clockMargin``) is refused from then on (``refuses(_:)``): a flood of
/// session ends shortens every token's life to about the time the list spans, so apps refresh sooner; a
/// logged-out or stolen token never works again. The end is the issuer's (the event's time), or when the
/// gateway heard of it where the issuer does not say. ``EndedSessionsFollower`` fills it from the event
/// stream; the gateway adds the sessions its own logouts ended at once.
final class EndedSessions: Sendable {
    /// How long an ended session is remembered when its event does not say, and how far back a gateway
    /// reads the events when it starts: the largest ACCESS_TOKEN_TTL.
    static let fallbackRetention: Int64 = 86_400
    /// Seconds added to a forgotten end before tokens are compared with it: an end is stamped by the
    /// database's clock (or this gateway's), a token's `iat` by its issuer replica's; hosts kept by NTP
    /// differ by far less. Not `CLOCK_SKEW`, which is for the providers' clocks: each second of it is a
    /// second in which the tokens a refresh hands out are refused again.
    static let clockMargin: Int64 = 2

    /// Each ended session with when it ended (seconds since 1970), until its tokens expire.
    private let sessions: Mutex<ExpiringDictionary<String, Int64, Int64>>
    /// The latest end the list forgot, plus ``clockMargin`` (seconds since 1970; `.min` while none): the tokens
    /// issued at or before it may be of a forgotten session.
    private let forgottenEndsUntil = Atomic<Int64>(.min)
    private let droppedWarned = Atomic<Bool>(false)
    /// Seconds added to each token expiry.
    let leeway: Int64
    private let logger: Logger
    private let metrics: MetricsRegistry

    /// An empty list of at most `capacity` sessions; `leeway` (seconds) is added to each token expiry.
    init(capacity: Int, leeway: Int64, logger: Logger, metrics: MetricsRegistry) {
        sessions = Mutex(ExpiringDictionary(capacity: capacity))
        self.leeway = leeway
        self.logger = logger
        self.metrics = metrics
        metrics.describeGauge("access_token_ended_sessions", "Ended sessions whose access tokens this gateway refuses.")
        metrics.describeCounter("access_token_ended_sessions_dropped_total",
                                "Ended sessions forgotten before their tokens expired, to keep the list within its capacity.")
    }

    /// Whether `sessionId` has ended.
    func contains(_ sessionId: String) -> Bool {
        sessions.withLock { $0[sessionId] != nil }
    }

    /// Why a token with `claims` is refused: its session ended, or it was issued before the end of a
    /// session the list forgot (it may be of that session); nil when neither.
    func refuses(_ claims: AccessTokenClaims) -> String? {
        // The list first, then the mark: a session forgotten after this look raised the mark before it went
        // (inside the lock), so the load after the lock sees it.
        if contains(claims.sid) { return "The access token's session has ended; sign in again." }
        if claims.iat <= forgottenEndsUntil.load(ordering: .acquiring) {
            return "The access token is older than the ended sessions this gateway still knows of; refresh it."
        }
        return nil
    }

    /// The sessions on the list (some may have expired and not yet been dropped).
    var count: Int {
        sessions.withLock { $0.count }
    }

    /// Puts `sessionIds`, ended at `endedAt` (by the issuer's clock; now when not known), on the list until
    /// `expireAt` plus the leeway, or for the fallback retention.
    func end(_ sessionIds: [String], endedAt: Date? = nil, tokensExpireAt expireAt: Date? = nil, now date: Date = Date()) {
        guard !sessionIds.isEmpty else { return }
        let now = Int64(date.timeIntervalSince1970)
        // Never later than this clock allows: a database clock that jumped ahead would otherwise raise the mark
        // past every token a refresh hands out, for as long as the jump.
        let ended = min(endedAt.map { Int64($0.timeIntervalSince1970.rounded(.up)) } ?? now, now + Self.clockMargin)
        let until = expireAt.map { Int64($0.timeIntervalSince1970) + leeway } ?? now + Self.fallbackRetention
        guard until > now else { return }
        let (count, dropped) = sessions.withLock { list in
            var dropped = 0
            var latestForgotten = Int64.min
            for sessionId in sessionIds where (list[sessionId]?.expiry ?? .min) < until {
                dropped += list.update(ended, for: sessionId, expiry: until, now: now) { endedAt in
                    latestForgotten = max(latestForgotten, endedAt)
                }
            }
            // Raised inside the lock: no reader sees the session gone before the mark covers it.
            if dropped > 0 { forgottenEndsUntil.max(latestForgotten + Self.clockMargin, ordering: .releasing) }
            return (list.count, dropped)
        }
        metrics.set("access_token_ended_sessions", to: Double(count))
        guard dropped > 0 else { return }
        metrics.increment("access_token_ended_sessions_dropped_total", by: Double(dropped))
        if !droppedWarned.exchange(true, ordering: .relaxed) {
            logger.warning("the ended-session list is full: the sessions whose tokens expire first are forgotten, and tokens "
                           + "issued before their end are refused (apps refresh); raise ENDED_SESSIONS_CAPACITY",
                           ["sessions.capacity": String(count)])
        }
    }
}
