import Contracts
import Crypto
import JOSE
import JSON

/// What the issuer's answer to a login's last hop tells the member-service that handed the login on,
/// beside the token pair sealed to the gateway: the SHA-256 of the access token it issued, with the
/// token's claims and `kid`, in the ``header``. The member-service remembers that token as verified, so the
/// first member-scoped call an app makes after its login (its profile, as a rule) costs no signature
/// check there.
///
/// The note comes only from the issuer: it arrives on the member-service's own inbox, as the answer to a
/// request only the issuer can read, whose reply subject ends in a random token. A hop passes back the
/// sealed reply alone, so the note goes no further.
public enum IssuedTokenNote {
    /// The reply header with the note (base64url of its JSON).
    public static let header = "X-Issued-Access-Token"
    /// The longest note read: claims and a `kid` far beyond any the issuer writes are not remembered.
    static let maxLength = 2_048

    struct Body: Codable {
        /// ``IssuedTokenNote/key(of:)`` of the access token.
        let token: String
        let claims: AccessTokenClaims
        let kid: String
    }

    /// The key a token is remembered by: the base64url SHA-256 of its text, so that neither the note nor
    /// the cache holds the token itself.
    public static func key(of token: String) -> String {
        Base64URL.encode(Digest.sha256(token))
    }

    /// The note for `pair`'s access token, as headers; none when the pair lacks its claims or `kid`.
    public static func headers(for pair: TokenPair) -> [String: String] {
        guard let claims = pair.claims, let kid = pair.keyId,
              let json = try? MessageCoding.encode(Body(token: key(of: pair.accessToken), claims: claims, kid: kid)) else {
            return [:]
        }
        return [header: Base64URL.encode(json)]
    }

    /// The note in `headers`, if there is one that reads as a note.
    static func read(_ headers: [String: String]) -> (key: String, claims: AccessTokenClaims, kid: String)? {
        guard let text = headers[header], text.utf8.count <= maxLength, let json = Base64URL.decode(text),
              let body = try? MessageCoding.decode(Body.self, from: json), body.token.utf8.count == 43 else {
            return nil
        }
        return (body.token, body.claims, body.kid)
    }
}
