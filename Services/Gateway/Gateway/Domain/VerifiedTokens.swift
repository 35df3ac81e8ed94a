import Contracts
import Synchronization

/// Access tokens this gateway has verified (or was handed by the issuer), remembered with their claims
/// until they expire, so a client that sends the same token on every request costs one signature check,
/// not one per request.
///
/// Kept in expiry order, at most `capacity`: beyond that the token that expires first is forgotten (it
/// costs one more signature check if it comes back).
final class VerifiedTokens: Sendable {
    private let tokens: Mutex<ExpiringDictionary<String, AccessTokenClaims, Int64>>

    /// An empty cache of at most `capacity` tokens.
    init(capacity: Int) {
        tokens = Mutex(ExpiringDictionary(capacity: capacity))
    }

    /// The claims remembered for `token`, expired or not.
    func claims(for token: String) -> AccessTokenClaims? {
        tokens.withLock { $0[token]?.value }
    }

    /// Remembers `token` with its `claims` until they expire; `now` is seconds since 1970.
    func remember(_ token: String, _ claims: AccessTokenClaims, now: Int64) {
        _ = tokens.withLock { $0.update(claims, for: token, expiry: claims.exp, now: now) }
    }

    /// Forgets every token: the issuer's key set lost a key, and a token signed with it must be checked again
    /// (and refused), however far off the expiry it claims.
    func forgetAll() {
        tokens.withLock { $0.removeAll() }
    }

    /// The tokens remembered (some may have expired and not yet been dropped).
    var count: Int {
        tokens.withLock { $0.count }
    }
}
