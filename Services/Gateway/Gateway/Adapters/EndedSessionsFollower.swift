import Contracts
import Foundation
import JSON
import Logging
import NATS

/// Follows `session.ended` in the `AUTH_EVENTS` stream and puts each session on the ``EndedSessions``
/// list. Each gateway replica reads the events from the longest access-token lifetime back, so a gateway
/// that starts (or reconnects) late still knows every session that ended while its tokens could be
/// valid; once it has read that far it opens the ``CatchUpGate`` that requests with a token wait at.
struct EndedSessionsFollower: Sendable {
    let sessions: EndedSessions
    let caughtUp: CatchUpGate
    let logger: Logger

    /// Follows the events for as long as the calling task runs; cnats keeps the ordered consumer going
    /// across reconnects. While the stream cannot be followed (JetStream down, or no stream yet: then no
    /// session has ended) it retries.
    func follow(_ connection: NATSConnection) async {
        let lookback = TimeInterval(EndedSessions.fallbackRetention + sessions.leeway)
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
                        sessions.end([event.data.sessionId], tokensExpireAt: event.data.tokensExpireAt)
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

    private func finishCatchUp() {
        if caughtUp.open() {
            logger.info("ended sessions read; tokens are checked against them")
        }
    }
}
