import Contracts
import Crypto
import Foundation
import JOSE

/// Signs access tokens and pairs them with refresh tokens.
struct AccessTokens: Sendable {
    let keys: any SigningKeyProvider
    let configuration: TokenIssuerConfiguration

    /// A new access token for the session, with `authTime` (seconds since 1970) as its sign-in, and `refreshToken`.
    func pair(memberId: Int64, sessionId: String, authTime: Int64, refreshToken: String) async throws -> TokenPair {
        let (signer, expiresBy) = try await keys.signer()
        let now = Int64(Date().timeIntervalSince1970)
        // A token of a retired key (a fallback) must expire before the key leaves the JWKS.
        let ttl = min(configuration.accessTokenTTL.components.seconds, expiresBy.map { Int64($0.timeIntervalSince1970) - now } ?? .max)
        let claims = AccessTokenClaims(iss: configuration.issuer, aud: configuration.audience, sub: String(memberId),
                                       sid: sessionId, iat: now, exp: now + ttl,
                                       jti: Base64URL.encode(SecureRandom.bytes(16)), authTime: authTime)
        return TokenPair(accessToken: try signer.sign(claims), refreshToken: refreshToken,
                         expiresIn: Int(ttl), memberId: memberId, sessionId: sessionId, claims: claims, keyId: signer.kid)
    }
}
