import Collections
import Contracts
import Synchronization

/// Access tokens verified here (or, at a gateway, handed out by the issuer), remembered with their claims
/// until they expire, so a client that sends the same token on every request costs one signature check,
/// not one per request.
///
/// Kept in expiry order, at most `capacity`: beyond that the token that expires first is forgotten (it
/// costs one more signature check if it comes back).
public final class VerifiedTokens: Sendable {
    /// A token's claims and the `kid` of the key that signed it.
    public struct Entry: Sendable {
        /// The token's claims.
        public let claims: AccessTokenClaims
        /// The `kid` of the key that signed it.
        public let kid: String?
    }

    private let tokens: Mutex<ExpiringDictionary<String, Entry, Int64>>

    /// An empty cache of at most `capacity` tokens.
    public init(capacity: Int) {
        tokens = Mutex(ExpiringDictionary(capacity: capacity))
    }

    /// What is remembered for `token`, expired or not.
    public func entry(for token: String) -> Entry? {
        tokens.withLock { $0[token]?.value }
    }

    /// Remembers `token`, signed with the key `kid`, with its `claims` until they expire; `now` is seconds
    /// since 1970.
    public func remember(_ token: String, _ claims: AccessTokenClaims, kid: String?, now: Int64) {
        _ = tokens.withLock { $0.update(Entry(claims: claims, kid: kid), for: token, expiry: claims.exp, now: now) }
    }

    /// The tokens remembered (some may have expired and not yet been dropped).
    public var count: Int {
        tokens.withLock { $0.count }
    }
}
