import Foundation
import JOSE

/// The `client_secret` of Apple's token and revoke endpoints: an ES256 JWT signed with the
/// team's Sign in with Apple key (iss = team ID, sub = client ID, aud = Apple, kid = key ID).
/// One per client ID, cached, and renewed once half its lifetime has passed.
actor AppleClientSecret {
    /// Apple's audience for client secrets.
    static let audience = "https://appleid.apple.com"
    /// The longest lifetime Apple accepts (6 months).
    static let maxLifetime: Duration = .seconds(15_777_000)

    private let teamID: String
    private let signer: JWTSigner
    private let lifetime: Duration
    private var cache: [String: (secret: String, renewAt: Date)] = [:]

    /// A secret source for `credentials`; `lifetime` is capped at six months.
    init(credentials: AppleCredentials) {
        self.teamID = credentials.teamID
        self.signer = JWTSigner(key: credentials.privateKey, kid: credentials.keyID, algorithm: .ES256)
        self.lifetime = min(credentials.clientSecretLifetime, Self.maxLifetime)
    }

    /// The secret for `clientID` at `now`: the cached one, or a new one when it is due for renewal.
    func secret(for clientID: String, now: Date = Date()) throws -> String {
        if let cached = cache[clientID], now < cached.renewAt { return cached.secret }
        let issuedAt = Int64(now.timeIntervalSince1970)
        let seconds = lifetime.components.seconds
        let claims = Claims(iss: teamID, sub: clientID, aud: Self.audience, iat: issuedAt, exp: issuedAt + seconds)
        let secret = try signer.sign(claims)
        cache[clientID] = (secret, now.addingTimeInterval(TimeInterval(seconds / 2)))
        return secret
    }

    private struct Claims: Encodable {
        let iss: String
        let sub: String
        let aud: String
        let iat: Int64
        let exp: Int64
    }
}
