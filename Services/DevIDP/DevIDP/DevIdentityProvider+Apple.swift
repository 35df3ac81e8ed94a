import Crypto
import Foundation
import JOSE
import JSON

/// An Apple grant: the user and client an authorization code or refresh token was issued to.
struct AppleGrant: Sendable {
    let subject: String
    let clientID: String?
}

extension DevIdentityProvider {
    /// A one-time authorization code for `subject` (and, when given, only for `clientID`).
    public func mintAppleCode(subject: String, clientID: String? = nil) -> String {
        let code = "c" + Hex.encode(SecureRandom.bytes(16)) + ".0.dev"
        appleCodes[code] = AppleGrant(subject: subject, clientID: clientID)
        return code
    }

    /// Whether the code was exchanged already (or never existed).
    public func appleCodeIsUsed(_ code: String) -> Bool {
        appleCodes[code] == nil
    }

    /// The live refresh tokens of `subject` (issued by exchanges, not revoked).
    public func appleRefreshTokens(subject: String) -> [String] {
        appleRefreshTokens.filter { $0.value.subject == subject }.map(\.key).sorted()
    }

    /// The user an unused code was issued to.
    func appleCodeSubject(_ code: String) -> String? {
        appleCodes[code]?.subject
    }

    /// The user a live refresh token belongs to.
    func appleRefreshTokenSubject(_ token: String) -> String? {
        appleRefreshTokens[token]?.subject
    }

    /// Whether `secret` is a client secret Apple would take for `clientID`: an ES256 JWT with the
    /// configured `kid`, signed by the configured key, iss = team, sub = client, aud = Apple,
    /// not expired, and living at most six months.
    /// The signature is checked off the actor.
    @concurrent nonisolated func appleClientSecretIsValid(_ secret: String, clientID: String, now: Date = Date()) async -> Bool {
        guard let jws = try? CompactJWS.parse(secret), jws.header.alg == "ES256",
              let claims = try? JWTClaims.decode(jws.payload) else { return false }
        if let keyID = configuration.appleKeyID, jws.header.kid != keyID { return false }
        if let key = appleClientSecretKey {
            guard let verificationKey = try? VerificationKey(kid: jws.header.kid, publicKey: key, algorithm: .ES256),
                  (try? jws.verify(with: VerificationKeySet(keys: [verificationKey]), allowed: [.ES256])) != nil else { return false }
        }
        if let teamID = configuration.appleTeamID, claims.iss != teamID { return false }
        let current = Int64(now.timeIntervalSince1970)
        guard claims.sub == clientID, claims.aud == ["https://appleid.apple.com"],
              let issuedAt = claims.iat, let expiry = claims.exp,
              issuedAt <= current + 60, expiry > current, expiry - issuedAt <= 15_777_000 else { return false }
        await noteClientSecret(secret)
        return true
    }

    private func noteClientSecret(_ secret: String) {
        appleClientSecretsSeen.insert(secret)
    }

    /// Exchanges a code: Apple's token answer, or nil when the code is unknown, used or for another client.
    /// The ID token is signed off the actor.
    @concurrent nonisolated func exchangeAppleCode(_ code: String, clientID: String) async throws -> AppleTokenAnswer? {
        guard let (grant, refreshToken, apple) = await redeemAppleCode(code, clientID: clientID) else { return nil }
        let now = Int64(Date().timeIntervalSince1970)
        let claims: [String: JSONValue] = ["iss": .string(apple.issuer), "aud": .string(clientID), "sub": .string(grant.subject),
                                           "iat": .integer(now), "exp": .integer(now + 600)]
        let idToken = try apple.current.signer.sign(claimsJSON: MessageCoding.encode(claims))
        return AppleTokenAnswer(access_token: "a" + Hex.encode(SecureRandom.bytes(16)), refresh_token: refreshToken, id_token: idToken)
    }

    /// Uses up `code`: its grant, the refresh token now live for it, and Apple's issuer to sign with.
    private func redeemAppleCode(_ code: String, clientID: String) -> (AppleGrant, String, FakeIssuer)? {
        guard let grant = appleCodes[code], grant.clientID == nil || grant.clientID == clientID,
              let apple = issuers["apple"] else { return nil }
        appleCodes[code] = nil
        let refreshToken = "r" + Hex.encode(SecureRandom.bytes(16)) + ".0.dev"
        appleRefreshTokens[refreshToken] = AppleGrant(subject: grant.subject, clientID: clientID)
        appleTokenExchanges += 1
        return (grant, refreshToken, apple)
    }

    /// Revokes a refresh token issued to `clientID`: true when it was live.
    func revokeAppleToken(_ token: String, clientID: String) -> Bool {
        guard let grant = appleRefreshTokens[token], grant.clientID == clientID else { return false }
        appleRefreshTokens[token] = nil
        appleRevocations += 1
        return true
    }

    /// The calls at Apple's revoke endpoint about a live refresh token of `subject`, oldest first, with the
    /// answer (a call about a token already revoked or unknown cannot be told apart by subject, and is not kept).
    public func appleRevokeCalls(subject: String) -> [AppleRevokeCall] {
        appleRevokeCalls[subject] ?? []
    }

    /// Notes a call at the revoke endpoint about a refresh token of `subject` and the status it was answered.
    func recordAppleRevokeCall(subject: String, status: Int) {
        appleRevokeCalls[subject, default: []].append(AppleRevokeCall(at: Date(), status: status))
    }

    /// An Apple server-to-server notification JWS, signed like Apple's identity tokens (off the actor).
    @concurrent public nonisolated func mintAppleNotification(_ request: AppleNotificationMint) async throws -> String {
        guard let apple = await issuerNow("apple") else { throw DevIDPError("no Apple issuer") }
        var event: [String: JSONValue] = ["type": .string(request.type), "sub": .string(request.sub),
                                          "event_time": .integer(request.event_time ?? Int64(Date().timeIntervalSince1970 * 1000))]
        if let email = request.email { event["email"] = .string(email) }
        if let isPrivate = request.is_private_email { event["is_private_email"] = isPrivate }
        let now = Int64(Date().timeIntervalSince1970)
        var claims: [String: JSONValue] = ["iss": .string(apple.issuer), "aud": .string(request.aud ?? configuration.appleClientID),
                                           "iat": .integer(now), "jti": .string(Hex.encode(SecureRandom.bytes(8))),
                                           "events": .string(String(decoding: try MessageCoding.encodeSortingKeys(event), as: UTF8.self))]
        for (name, value) in request.claims ?? [:] {
            claims[name] = value == .null ? nil : value
        }
        return try apple.current.signer.sign(claimsJSON: MessageCoding.encodeSortingKeys(claims))
    }
}

/// One call at Apple's revoke endpoint: when it was answered, and with which HTTP status.
public struct AppleRevokeCall: Sendable, Equatable {
    /// When the answer was made.
    public let at: Date
    /// The HTTP status answered (200 revoked, 503 during an outage, 400 refused).
    public let status: Int
}

/// Apple's answer to a successful code exchange.
struct AppleTokenAnswer: Encodable {
    let access_token: String
    var token_type = "Bearer"
    var expires_in = 3600
    let refresh_token: String
    let id_token: String
}

/// `POST /apple/mint-notification`: the event to put in a server-to-server notification.
public struct AppleNotificationMint: Codable, Sendable {
    /// `consent-revoked`, `account-delete`, `email-disabled` or `email-enabled`.
    public var type: String
    /// The Apple user ID.
    public var sub: String
    /// The email concerned, if any.
    public var email: String?
    /// `true`/`false` or `"true"`/`"false"`, as Apple sends either.
    public var is_private_email: JSONValue?
    /// When it happened (default now, in milliseconds as Apple sends it).
    public var event_time: Int64?
    /// The audience (default `DEV_IDP_APPLE_CLIENT_ID`).
    public var aud: String?
    /// Claims to add or override (a JSON null removes one), to mint bad notifications.
    public var claims: [String: JSONValue]?

    /// Creates a request.
    public init(type: String, sub: String, email: String? = nil, is_private_email: JSONValue? = nil, event_time: Int64? = nil,
                aud: String? = nil, claims: [String: JSONValue]? = nil) {
        self.type = type
        self.sub = sub
        self.email = email
        self.is_private_email = is_private_email
        self.event_time = event_time
        self.aud = aud
        self.claims = claims
    }
}
