import Contracts
import Foundation
import JSON
import Logging
import Messaging
import Metrics
import NATS
import Synchronization

/// The sessions that ended while their access tokens could still be live: their tokens are refused.
///
/// Every `session.ended` event puts its session on the list until the session's last token expired
/// (plus the leeway). The list is kept in expiry order, so each insert drops the expired entries from
/// the front and never copies the whole. It holds at most `capacity` sessions: beyond that the one
/// whose tokens expire first is forgotten, counted in `access_token_ended_sessions_dropped_total` (its
/// tokens would work again until they expire; size the capacity for the session ends of one token
/// lifetime). Each gateway replica follows the events in the `AUTH_EVENTS` stream from the longest
/// access-token lifetime back, so a gateway that starts (or reconnects) late still knows every session
/// that ended while its tokens could be valid; until it has read that far, requests with a token wait.
final class EndedSessions: Sendable {
    /// How long an ended session is remembered when its event does not say, and how far back a gateway
    /// reads the events when it starts: the largest ACCESS_TOKEN_TTL.
    static let fallbackRetention: Int64 = 86_400

    private let sessions: Mutex<ExpiringDictionary<String, Void, Int64>>
    /// Whether the stored `session.ended` events have been read, and who waits for that.
    private let catchUp = Mutex(CatchUp())
    private let droppedWarned = Atomic<Bool>(false)
    private let leeway: Int64
    private let logger: Logger
    private let metrics: MetricsRegistry

    private struct CatchUp {
        var done = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

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

    /// Follows `session.ended` in the event stream for as long as the calling task runs, from the longest
    /// access-token lifetime back; cnats keeps the ordered consumer going across reconnects. While the
    /// stream cannot be followed (JetStream down, or no stream yet: then no session has ended) it retries.
    func follow(_ connection: NATSConnection) async {
        let lookback = TimeInterval(Self.fallbackRetention + leeway)
        var failures = 0
        while !Task.isCancelled {
            let follower: StreamFollower
            do {
                follower = try await connection.jetStream.follow(stream: Events.stream, subject: Events.sessionEnded.subject,
                                                                 since: Date(timeIntervalSinceNow: -lookback))
            } catch {
                // 10059: no stream yet; 10076: a server without JetStream. Either way no event is stored to read.
                if let error = error as? NATSError, error == .jetStream(10059) || error == .jetStream(10076) {
                    finishCatchUp()
                }
                if failures == 0 {
                    logger.warning("cannot follow session.ended yet; retrying", ["error": String(describing: error)])
                }
                failures += 1
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            logger.info("following session.ended", ["events.caught_up_at": String(follower.caughtUpAt)])
            if follower.caughtUpAt == 0 { finishCatchUp() }
            await withTaskCancellationHandler {
                for await message in follower.messages {
                    do {
                        let event = try MessageCoding.decode(EventEnvelope<SessionEnded>.self, from: message.payload)
                        end([event.data.sessionId], tokensExpireAt: event.data.tokensExpireAt)
                    } catch {
                        logger.warning("unreadable session.ended event ignored", ["events.sequence": String(message.streamSequence)])
                    }
                    if message.streamSequence >= follower.caughtUpAt { finishCatchUp() }
                }
            } onCancel: {
                follower.messages.unsubscribe()
            }
            // The subscription ended (connection closed): follow again unless the task is done.
            failures = 0
        }
    }

    /// True once the stored `session.ended` events have been read.
    var isRead: Bool {
        catchUp.withLock { $0.done }
    }

    /// Returns once the stored `session.ended` events have been read, or throws 503 when that takes longer
    /// than `timeout` (a gateway that has just started and cannot read the stream).
    func waitUntilRead(client: ServiceClient?, timeout: Duration) async throws(ServiceFailure) {
        if isRead { return }
        guard client != nil else { throw ServiceFailure.unavailable }  // Not connected to NATS yet.
        let done = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.caughtUp() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !done {
            throw ServiceFailure(.serviceUnavailable, "The gateway is still reading which sessions have ended; retry shortly.")
        }
    }

    /// Waits until the catch-up is done (true), or until the task is cancelled (false).
    private func caughtUp() async -> Bool {
        let id = catchUp.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = catchUp.withLock { state -> Bool in
                    if state.done || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            catchUp.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
        return isRead
    }

    private func finishCatchUp() {
        let waiters = catchUp.withLock { state -> [CheckedContinuation<Void, Never>]? in
            guard !state.done else { return nil }
            state.done = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        guard let waiters else { return }
        logger.info("ended sessions read; tokens are checked against them")
        for waiter in waiters { waiter.resume() }
    }
}
