import Collections
import Foundation
import JSON
import Logging
import Metrics
import Synchronization

/// The sessions that ended while their access tokens could still be live: their tokens are refused.
///
/// Every `session.ended` event puts its session on the list until the session's last token expired
/// (plus the leeway). The list is kept in expiry order, so each insert drops the expired entries from
/// the front and never copies the whole. It holds at most `capacity` sessions: beyond that the one
/// whose tokens expire first is forgotten, counted in `access_token_ended_sessions_dropped_total` (its
/// tokens would work again until they expire; size the capacity for the session ends of one token
/// lifetime). ``EndedSessionsFollower`` fills it from the event stream; the gateway adds the sessions
/// its own logouts ended at once.
final class EndedSessions: Sendable {
    /// How long an ended session is remembered when its event does not say, and how far back a gateway
    /// reads the events when it starts: the largest ACCESS_TOKEN_TTL.
    static let fallbackRetention: Int64 = 86_400

    private let sessions: Mutex<ExpiringDictionary<String, Void, Int64>>
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

    /// The sessions on the list (some may have expired and not yet been dropped).
    var count: Int {
        sessions.withLock { $0.count }
    }

    /// Puts `sessionIds` on the list until `expireAt` plus the leeway, or for the fallback retention.
    func end(_ sessionIds: [String], tokensExpireAt expireAt: Date? = nil, now date: Date = Date()) {
        guard !sessionIds.isEmpty else { return }
        let now = Int64(date.timeIntervalSince1970)
        let until = expireAt.map { Int64($0.timeIntervalSince1970) + leeway } ?? now + Self.fallbackRetention
        guard until > now else { return }
        let (count, dropped) = sessions.withLock { list in
            var dropped = 0
            for sessionId in sessionIds where (list[sessionId]?.expiry ?? .min) < until {
                dropped += list.update((), for: sessionId, expiry: until, now: now)
            }
            return (list.count, dropped)
        }
        metrics.set("access_token_ended_sessions", to: Double(count))
        guard dropped > 0 else { return }
        metrics.increment("access_token_ended_sessions_dropped_total", by: Double(dropped))
        if !droppedWarned.exchange(true, ordering: .relaxed) {
            logger.warning("the ended-session list is full: the sessions whose tokens expire first are forgotten",
                           ["sessions.capacity": String(count)])
        }
    }
}
