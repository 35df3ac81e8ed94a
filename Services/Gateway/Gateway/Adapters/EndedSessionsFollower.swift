import Collections
import Contracts
import Foundation
import JSON
import Logging
import Messaging
import NATS

/// Keeps the ``EndedSessions`` list: `session.ended` events as they are published (a plain subscription),
/// and, at start and after every gap in that subscription (a reconnect, or messages dropped), the sessions
/// the token-issuer says ended while their access tokens may still be live (`auth.issuer.ended-sessions`,
/// from its table). Once the first such read is done it opens the ``Gate`` that requests with a
/// token wait at.
///
/// The gateway reads the stream through no JetStream consumer: a consumer's creator chooses where it
/// delivers, and nats-server checks no permission on that (SPEC section 9 allows a push consumer aimed only
/// at its creator's inbox), so the gateway's identity may create none.
struct EndedSessionsFollower: Sendable {
    let sessions: EndedSessions
    let caughtUp: Gate
    let logger: Logger

    /// Follows the ended sessions for as long as the calling task runs.
    func follow(_ client: ServiceClient, timeout: Duration) async {
        let connection = client.connection
        // Watched before the subscription is made, so no gap after it goes unseen.
        let gaps = connection.gaps()
        let live: NATSSubscription
        var warned = false
        while true {
            do {
                live = try connection.subscribe(Events.sessionEnded.subject)
                break
            } catch {
                if !warned {
                    logger.warning("cannot subscribe to session.ended yet; retrying", ["error": String(describing: error)])
                    warned = true
                }
                do { try await Task.sleep(for: .seconds(1)) } catch { return }
            }
        }
        let reader = Task {
            for await message in live {
                do {
                    let event = try MessageCoding.decode(EventEnvelope<SessionEnded>.self, from: message.payload)
                    sessions.end([event.data.sessionId], endedAt: event.occurredAt, tokensExpireAt: event.data.tokensExpireAt)
                } catch {
                    logger.warning("unreadable session.ended event ignored")
                }
            }
        }
        defer {
            live.unsubscribe()
            reader.cancel()
        }
        var gap = gaps.makeAsyncIterator()
        while !Task.isCancelled {
            await readEnded(client, timeout: timeout)
            // Waits for the next gap; nil once the connection closed or the task is cancelled.
            guard await gap.next() != nil else { return }
            logger.info("session.ended may have been missed; reading the ended sessions again")
        }
    }

    /// Reads every ended session whose tokens may be live from the issuer, page by page, retrying each page
    /// every second until the issuer answers; opens the gate once done.
    private func readEnded(_ client: ServiceClient, timeout: Duration) async {
        var after: String?
        var failing = false
        var count = 0
        while !Task.isCancelled {
            do {
                let page = try await RequestID.$current.withValue(nil) {
                    try await client.call(Endpoints.endedSessions, EndedSessionsRequest(after: after), timeout: timeout, retries: 1)
                }
                for session in page.sessions {
                    sessions.end([session.sessionId], endedAt: session.endedAt, tokensExpireAt: session.tokensExpireAt)
                }
                count += page.sessions.count
                guard let next = page.next else { break }
                after = next
            } catch {
                if !failing {
                    logger.warning("cannot read the ended sessions from the issuer yet; retrying", ["error": String(describing: error)])
                    failing = true
                }
                do { try await Task.sleep(for: .seconds(1)) } catch { return }
            }
        }
        guard !Task.isCancelled else { return }
        if caughtUp.open() {
            logger.info("ended sessions read; tokens are checked against them", ["sessions.count": String(count)])
        }
    }
}
