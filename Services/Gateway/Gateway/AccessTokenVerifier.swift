import Contracts
import Foundation
import JOSE
import Logging
import Messaging
import Metrics
import NATS
import Synchronization

/// Checks service access tokens locally against the issuer's key set (fetched over NATS),
/// and remembers tokens it has verified until they expire, so a client that sends the same
/// token on every request costs one signature check, not one per request.
///
/// Tokens of ended sessions are refused: every `session.ended` event puts the session on a list kept
/// until the session's last token expired, and both the signature check and the cache consult it. Each
/// gateway replica follows the events in the `AUTH_EVENTS` stream from the longest access-token lifetime
/// back, so a gateway that starts (or reconnects) late still knows every session that ended while its
/// tokens could be valid; until it has read that far, requests with a token wait for it.
final class AccessTokenVerifier: Sendable {
    private struct Keys: Sendable {
        let set: VerificationKeySet
        let fetchedAt: ContinuousClock.Instant
    }

    private let issuer: String
    private let audience: String
    private let leeway: Int64
    private let maxCached: Int
    private let keys = Mutex<Keys?>(nil)
    private let verified = Mutex<[String: AccessTokenClaims]>([:])
    /// Ended session IDs and when to forget them (seconds since 1970).
    private let endedSessions = Mutex<[String: Int64]>([:])
    /// Whether the stored `session.ended` events have been read, and who waits for that.
    private let catchUp = Mutex(CatchUp())
    /// How long an ended session is remembered when its event does not say, and how far back a gateway
    /// reads the events when it starts: the largest ACCESS_TOKEN_TTL.
    private static let endedFallbackRetention: Int64 = 86_400

    private struct CatchUp {
        var done = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }
    private let logger: Logger
    private let metrics: MetricsRegistry

    init(issuer: String, audience: String, leeway: Duration, maxCached: Int = 100_000, logger: Logger, metrics: MetricsRegistry) {
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway.components.seconds
        self.maxCached = maxCached
        self.logger = logger
        self.metrics = metrics
        metrics.describeCounter("access_token_signature_checks_total",
                                "Access-token signatures checked; tokens remembered as verified or as issued cost none.")
    }

    /// The claims of a valid access token, or `UNAUTHORIZED`.
    func verify(_ token: String, client: ServiceClient?, timeout: Duration) async throws(ServiceFailure) -> AccessTokenClaims {
        try await waitForEndedSessions(client: client, timeout: timeout)
        let now = Int64(Date().timeIntervalSince1970)
        if let claims = verified.withLock({ $0[token] }) {
            guard claims.exp > now else { throw Self.unauthorized("The access token has expired.") }
            try checkSessionLive(claims)
            return claims
        }
        let jws: CompactJWS
        do {
            jws = try CompactJWS.parse(token, maxLength: 4096)
        } catch {
            throw Self.unauthorized("The access token is malformed.")
        }
        let set = try await keySet(for: jws.header.kid, client: client, timeout: timeout)
        let claims: AccessTokenClaims
        metrics.increment("access_token_signature_checks_total")
        do {
            try jws.verify(with: set, allowed: [.ES256, .EdDSA])
            claims = try MessageCoding.decode(AccessTokenClaims.self, from: jws.payload)
        } catch {
            throw Self.unauthorized("The access token is not valid.")
        }
        guard claims.iss == issuer, claims.aud == audience else {
            throw Self.unauthorized("The access token is not for this service.")
        }
        guard claims.exp > now else { throw Self.unauthorized("The access token has expired.") }
        guard claims.iat <= now + leeway else { throw Self.unauthorized("The access token is not valid yet.") }
        try checkSessionLive(claims)
        remember(token, claims, now: now)
        return claims
    }

    /// Remembers an access token that the issuer has just handed out over NATS (a login or a refresh) as
    /// verified. It came through the same channel as the issuer's keys, so checking its signature would
    /// prove nothing more; the app's next requests with it, usually to this replica on the same connection,
    /// then cost no signature check.
    func rememberIssued(_ token: String) {
        guard let jws = try? CompactJWS.parse(token, maxLength: 4096),
              let claims = try? MessageCoding.decode(AccessTokenClaims.self, from: jws.payload),
              claims.iss == issuer, claims.aud == audience else { return }
        remember(token, claims, now: Int64(Date().timeIntervalSince1970))
    }

    /// Refuses the tokens of `sessionIds` from now on (until `expireAt`, or the fallback retention):
    /// the gateway calls this when a logout it forwarded ended them, before any event arrives.
    func sessionsEnded(_ sessionIds: [String], tokensExpireAt expireAt: Date? = nil) {
        guard !sessionIds.isEmpty else { return }
        let now = Int64(Date().timeIntervalSince1970)
        let until = expireAt.map { Int64($0.timeIntervalSince1970) + leeway } ?? now + Self.endedFallbackRetention
        guard until > now else { return }
        endedSessions.withLock { ended in
            if ended.count >= maxCached {
                ended = ended.filter { $0.value > now }
            }
            for sessionId in sessionIds { ended[sessionId] = max(ended[sessionId] ?? 0, until) }
        }
    }

    private func checkSessionLive(_ claims: AccessTokenClaims) throws(ServiceFailure) {
        if endedSessions.withLock({ $0[claims.sid] != nil }) {
            throw Self.unauthorized("The access token's session has ended; sign in again.")
        }
    }

    /// Follows `session.ended` in the event stream for as long as the calling task runs, from the longest
    /// access-token lifetime back; cnats keeps the ordered consumer going across reconnects. While the
    /// stream cannot be followed (JetStream down, or no stream yet: then no session has ended) it retries.
    func followEndedSessions(_ connection: NATSConnection) async {
        let lookback = TimeInterval(Self.endedFallbackRetention + leeway)
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
                        sessionsEnded([event.data.sessionId], tokensExpireAt: event.data.tokensExpireAt)
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

    /// Returns once the stored `session.ended` events have been read, or throws 503 when that takes longer
    /// than `timeout` (a gateway that has just started and cannot read the stream).
    private func waitForEndedSessions(client: ServiceClient?, timeout: Duration) async throws(ServiceFailure) {
        if catchUp.withLock({ $0.done }) { return }
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
        return catchUp.withLock { $0.done }
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

    /// True once the issuer's keys were fetched and the ended sessions read: this gateway can check tokens.
    var isLoaded: Bool {
        keys.withLock { $0 != nil } && catchUp.withLock { $0.done }
    }

    /// Fetches the issuer's keys, every second until it answers or the task is cancelled, so that the
    /// gateway is ready before the first Bearer request rather than at it.
    func preloadKeys(client: ServiceClient, timeout: Duration) async {
        var warned = false
        while !Task.isCancelled, keys.withLock({ $0 == nil }) {
            do {
                _ = try await keySet(for: nil, client: client, timeout: timeout)
            } catch {
                if !warned {
                    logger.warning("cannot fetch the issuer's keys yet; retrying", ["error": error.description])
                    warned = true
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// The issuer's public keys as last fetched, for `/.well-known/jwks.json`.
    func publishedKeys(client: ServiceClient?, timeout: Duration) async throws(ServiceFailure) -> JWKSet {
        guard let client else { throw ServiceFailure.unavailable }
        return try await client.call(Endpoints.accessTokenKeys, AccessTokenKeysRequest(), timeout: timeout, retries: 1).jwks
    }

    private func keySet(for kid: String?, client: ServiceClient?, timeout: Duration) async throws(ServiceFailure) -> VerificationKeySet {
        let current = keys.withLock { $0 }
        if let current {
            let known = kid.map { current.set.key(for: $0) != nil } ?? true
            // An unknown kid may be a key the issuer just rotated in: refetch, at most once a second.
            if known || ContinuousClock.now - current.fetchedAt < .seconds(1) { return current.set }
        }
        guard let client else { throw ServiceFailure.unavailable }
        let reply = try await client.call(Endpoints.accessTokenKeys, AccessTokenKeysRequest(), timeout: timeout, retries: 1)
        let set = VerificationKeySet(reply.jwks)
        keys.withLock { $0 = Keys(set: set, fetchedAt: .now) }
        return set
    }

    private func remember(_ token: String, _ claims: AccessTokenClaims, now: Int64) {
        verified.withLock { cache in
            if cache.count >= maxCached {
                cache = cache.filter { $0.value.exp > now }
                if cache.count >= maxCached { cache.removeAll(keepingCapacity: true) }
            }
            cache[token] = claims
        }
    }

    private static func unauthorized(_ message: String) -> ServiceFailure {
        ServiceFailure(.unauthorized, message)
    }
}
