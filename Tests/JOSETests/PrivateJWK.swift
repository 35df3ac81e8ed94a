import Crypto
import JOSE
import Testing

/// A private JWK as published in the RFC examples, only for re-signing tests (the JOSE module never reads private JWKs).
struct PrivateJWK: Decodable {
    let kty: String
    let crv: String?
    let n: String?, e: String?, d: String?, p: String?, q: String?, dp: String?, dq: String?, qi: String?
    let x: String?, y: String?

    func privateKey() throws -> PrivateKey {
        switch kty {
        case "RSA":
            return try PrivateKey.rsa(
                modulus: Fixture.b64(n), publicExponent: Fixture.b64(e), privateExponent: Fixture.b64(d),
                prime1: Fixture.b64(p), prime2: Fixture.b64(q), exponent1: Fixture.b64(dp), exponent2: Fixture.b64(dq),
                coefficient: Fixture.b64(qi))
        case "EC":
            return try PrivateKey.p256(x: Fixture.b64(x), y: Fixture.b64(y), d: Fixture.b64(d))
        case "OKP":
            return try PrivateKey.ed25519(seed: Fixture.b64(d))
        default:
            Issue.record("unexpected private key type \(kty)")
            throw CryptoError.unsupportedKey
        }
    }
}
