import Crypto
import Foundation
import JOSE

/// One fake OpenID Connect issuer (Google, Apple or Kakao): RSA keys, the newest of which
/// signs, and a counter of key-set fetches so tests can prove the verifier caches.
struct FakeIssuer: Sendable {
    struct Key: Sendable {
        let kid: String
        let signer: JWTSigner
        let jwk: JWK
    }

    let name: String
    let issuer: String
    private(set) var keys: [Key]
    /// A key that is never published, to mint tokens no key set can verify.
    let unpublished: Key
    private(set) var jwksFetches = 0

    init(name: String, issuer: String) throws {
        self.name = name
        self.issuer = issuer
        self.keys = [try Self.makeKey()]
        self.unpublished = try Self.makeKey()
    }

    /// The key set as published.
    mutating func publishedKeys() -> JWKSet {
        jwksFetches += 1
        return JWKSet(keys: keys.map(\.jwk))
    }

    /// Adds a new signing key; the old ones stay published.
    mutating func rotate() throws -> String {
        let key = try Self.makeKey()
        keys.append(key)
        return key.kid
    }

    /// The key that signs now.
    var current: Key { keys[keys.count - 1] }

    private static func makeKey() throws -> Key {
        let key = try PrivateKey.generateRSA(bits: 2048)
        let kid = Base64URL.encode(SecureRandom.bytes(8))
        return Key(kid: kid, signer: JWTSigner(key: key, kid: kid, algorithm: .RS256),
                   jwk: JWK(publicKey: key.publicKey, kid: kid, alg: .RS256))
    }
}
