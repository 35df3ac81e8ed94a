import Crypto
import Foundation
import JOSE

/// One fake OpenID Connect issuer (Google, Apple or Kakao): RSA keys, the newest of which
/// signs, one P-256 and one Ed25519 key (published for ES256 and EdDSA tokens), and a counter
/// of key-set fetches so tests can prove the verifier caches.
struct FakeIssuer: Sendable {
    struct Key: Sendable {
        let kid: String
        let signer: JWTSigner
        let jwk: JWK
    }

    let name: String
    let issuer: String
    private(set) var keys: [Key]
    /// The published P-256 and Ed25519 keys.
    let ec: Key
    let ed: Key
    /// A key that is never published, to mint tokens no key set can verify.
    let unpublished: Key
    private(set) var jwksFetches = 0
    /// Fetches of the unpublished key's own key set (served to catch a verifier following `jku`).
    private(set) var unpublishedJWKSFetches = 0

    /// An issuer with fresh keys; `unpublished` may be shared between issuers (RSA keys are slow to make).
    init(name: String, issuer: String, unpublished: Key) throws {
        self.name = name
        self.issuer = issuer
        self.keys = [try Self.makeKey(PrivateKey.generateRSA(bits: 2048), .RS256)]
        self.ec = try Self.makeKey(PrivateKey.generateP256(), .ES256)
        self.ed = try Self.makeKey(PrivateKey.generateEd25519(), .EdDSA)
        self.unpublished = unpublished
    }

    /// The key set as published.
    mutating func publishedKeys() -> JWKSet {
        jwksFetches += 1
        return JWKSet(keys: keys.map(\.jwk) + [ec.jwk, ed.jwk])
    }

    /// The unpublished key as a key set of its own.
    mutating func unpublishedKeys() -> JWKSet {
        unpublishedJWKSFetches += 1
        return JWKSet(keys: [unpublished.jwk])
    }

    /// Adds `key` as the RSA key that signs from now on; the old ones stay published.
    mutating func add(_ key: Key) {
        keys.append(key)
    }

    /// The RSA key that signs now.
    var current: Key { keys[keys.count - 1] }

    /// The key that signs `algorithm` tokens, nil for `none`, HS256 and unknown names.
    func key(for algorithm: String, unpublished: Bool) -> Key? {
        switch algorithm {
        case "RS256": unpublished ? self.unpublished : current
        case "ES256": ec
        case "EdDSA": ed
        default: nil
        }
    }

    /// A new key for `algorithm`, with a random kid.
    static func makeKey(_ key: PrivateKey, _ algorithm: JWSAlgorithm) throws -> Key {
        let kid = Base64URL.encode(SecureRandom.bytes(8))
        return Key(kid: kid, signer: JWTSigner(key: key, kid: kid, algorithm: algorithm),
                   jwk: JWK(publicKey: key.publicKey, kid: kid, alg: algorithm))
    }
}
