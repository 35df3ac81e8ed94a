import Contracts
import JOSE
import JSON
import Logging
import Messaging
import NATS
import Synchronization

/// The issuer's public keys as this process last fetched them over NATS: what access tokens are checked
/// against (by the gateway, and by the member-service, which checks the token each member-scoped request
/// carries), and what the gateway's `/.well-known/jwks.json` serves, so that neither costs a NATS call.
/// The issuer answers with the `iss` and `aud` its tokens carry too; only the token-issuer's identity can
/// answer on this process's inbox.
///
/// The copy follows the issuer: it is fetched again when a token-issuer announces a change
/// (`auth.issuer.keys-changed`: a rotation scheduled, a key file recorded), every `maximumAge` (a retired
/// key leaves the set unannounced, and a notice may be missed while disconnected), and when a token names a
/// key the copy lacks, at most once a second. However many ask at once, one fetch is in flight.
public final class IssuerKeys: Sendable {
    /// One fetched key set.
    public struct Snapshot: Sendable {
        /// The keys, ready to check signatures.
        public let set: VerificationKeySet
        /// The keys as published.
        public let jwks: JWKSet
        /// The `iss` the issuer's tokens carry.
        public let issuer: String
        /// The `aud` the issuer's tokens carry.
        public let audience: String
        /// When the fetch that got it began.
        let fetchedAt: ContinuousClock.Instant
    }

    private struct State {
        var current: Snapshot?
        var fetch: Task<Snapshot, any Error>?
    }

    private let state = Mutex(State())
    private let maximumAge: Duration
    private let logger: Logger

    /// An empty copy, fetched again after `maximumAge` at the latest once `follow` runs.
    public init(maximumAge: Duration = .seconds(60), logger: Logger) {
        self.maximumAge = maximumAge
        self.logger = logger
    }

    /// True once a key set was fetched.
    public var isLoaded: Bool {
        state.withLock { $0.current != nil }
    }

    /// Whether the copy has the key `kid` names (with no `kid`, whether it has exactly one key): a token
    /// remembered as verified counts only while the key that signed it is still published.
    public func has(kid: String?) -> Bool {
        state.withLock { $0.current?.set.key(for: kid) != nil }
    }

    /// The key set to publish, or 503 before the first fetch.
    public func published() throws(ServiceFailure) -> JWKSet {
        guard let current = state.withLock({ $0.current }) else { throw ServiceFailure.unavailable }
        return current.jwks
    }

    /// The keys to check a token naming `kid` against: the copy, fetched again first when it lacks `kid`
    /// and is more than a second old.
    public func keySet(for kid: String?, client: (any ServiceCalling)?, timeout: Duration) async throws(ServiceFailure) -> VerificationKeySet {
        try await snapshot(for: kid, client: client, timeout: timeout).set
    }

    /// The copy to check a token naming `kid` against, with the issuer and audience: fetched again first
    /// when it lacks `kid` and is more than a second old.
    public func snapshot(for kid: String?, client: (any ServiceCalling)?, timeout: Duration) async throws(ServiceFailure) -> Snapshot {
        if let current = state.withLock({ $0.current }) {
            let known = kid.map { current.set.key(for: $0) != nil } ?? true
            if known || ContinuousClock.now - current.fetchedAt < .seconds(1) { return current }
        }
        guard let client else { throw ServiceFailure.unavailable }
        return try await fetch(client: client, timeout: timeout)
    }

    /// Keeps the copy current for as long as the calling task runs: fetches it (every second until the
    /// issuer answers), then again on every change notice and every `maximumAge`.
    public func follow(client: ServiceClient, timeout: Duration) async {
        let notices: NATSSubscription?
        do {
            notices = try client.connection.subscribe(SigningKeyNotices.changed)
        } catch {
            notices = nil
            logger.warning("cannot subscribe to signing-key notices; the keys are fetched every \(maximumAge) only",
                           ["error": String(describing: error)])
        }
        let listener = Task {
            guard let notices else { return }
            for await _ in notices {
                do {
                    _ = try await load(client: client, timeout: timeout)
                } catch {
                    logger.warning("cannot fetch the issuer's changed keys", ["error": String(describing: error)])
                }
            }
        }
        defer {
            notices?.unsubscribe()
            listener.cancel()
        }
        var failing = false
        while !Task.isCancelled {
            do {
                // Its own fetch, not the shared one: this one stops when the task does (a service's SIGTERM).
                _ = try await load(client: client, timeout: timeout)
                failing = false
                try? await Task.sleep(for: maximumAge)
            } catch {
                if !failing {
                    logger.warning("cannot fetch the issuer's keys yet; retrying", ["error": String(describing: error)])
                    failing = true
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Fetches the key set, or joins the fetch already in flight.
    private func fetch(client: any ServiceCalling, timeout: Duration) async throws(ServiceFailure) -> Snapshot {
        let task = state.withLock { state -> Task<Snapshot, any Error> in
            if let running = state.fetch { return running }
            // Not cancelled with a caller that stops waiting: the others still wait for it.
            let task = Task<Snapshot, any Error> {
                defer { self.state.withLock { $0.fetch = nil } }
                // Shared by every caller waiting for it, so it carries none's request ID, nor its deadline.
                return try await RequestID.$current.withValue(nil) {
                    try await RequestDeadline.$current.withValue(nil) { try await self.load(client: client, timeout: timeout) }
                }
            }
            state.fetch = task
            return task
        }
        do {
            return try await task.value
        } catch let failure as ServiceFailure {
            throw failure
        } catch {
            throw ServiceFailure.unavailable
        }
    }

    /// Fetches the key set from the issuer and keeps it as the copy, unless a fetch begun later already did:
    /// an answer from before a rotation never replaces the one after it.
    private func load(client: any ServiceCalling, timeout: Duration) async throws -> Snapshot {
        let begun = ContinuousClock.now
        let reply = try await client.call(Endpoints.accessTokenKeys, AccessTokenKeysRequest(), timeout: timeout, retries: 1)
        let jwks = try reply.jwks.decode(JWKSet.self)
        let fetched = Snapshot(set: VerificationKeySet(jwks), jwks: jwks, issuer: reply.issuer, audience: reply.audience, fetchedAt: begun)
        return state.withLock { state in
            if let current = state.current, current.fetchedAt > begun { return current }
            state.current = fetched
            return fetched
        }
    }
}
