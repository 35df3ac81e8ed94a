import Foundation

/// A refresh token: `<session ID>.<generation>.<tag>.<MAC>`: the tag the first 16 bytes of SHA-256 over the session's
/// secret (`issuer.sessions.token_secret`, 16 random bytes kept for its life, never sent) and the generation
/// (``RefreshTokenKeys/tag(secret:generation:)``, `issuer.token_tag` in SQL), the MAC an HMAC-SHA-256 under the
/// issuer's refresh token key (``RefreshTokenKeys``) over all three, both base64url.
///
/// Rule (refresh tokens by generation): a session's live token is the one of its current generation; a refresh
/// moves the session one generation on (SQL/functions.sql), and the successor is the next generation's token,
/// which anyone holding the key and the session's secret makes again, so a duplicate refresh inside the grace
/// window gets the same one and nothing that is a token is stored. A token takes both: the key, which only the
/// key files hold (a made-up token fails its MAC here, before anything is read, and ends nothing), and the tag of
/// the live generation, which only the database can make (a session's ID is in its access tokens, and an old token
/// of the session tells its own generation's tag, not the secret: with the key alone, or with the key and an old
/// token, no one makes the live token).
struct RefreshToken: Sendable, Equatable {
    let sessionId: UUID
    let generation: Int64
    /// The generation's tag (``RefreshTokenKeys/tagBytes`` bytes).
    let tag: [UInt8]
    /// The token as the app holds it.
    let value: String
}

/// A token an app presented, of either kind this release reads.
enum PresentedRefreshToken: Sendable {
    case current(RefreshToken)
    /// One issued before generations, read until the last can have expired.
    case legacy(LegacyRefreshToken)
}
