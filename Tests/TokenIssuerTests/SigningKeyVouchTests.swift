import Crypto
import Foundation
import Testing
@testable import TokenIssuer

/// A key file's vouch for the key it retired: only a held key's signature over that key's kid and
/// retirement counts.
@Suite("Signing key vouches")
struct SigningKeyVouchTests {
    private let retiredAt = Date(timeIntervalSince1970: 1_800_000_000)

    private func key() throws -> SigningKey {
        try SigningKey(privateKey: try PrivateKey.generateP256(), activatesAt: .distantPast, retiredAt: nil)
    }

    @Test("a held key's vouch verifies for that kid and retirement only")
    func verifies() throws {
        let file = try key(), retired = try key()
        let vouch = try SigningKeyVouch.make(for: retired.kid, retiredAt: retiredAt, by: try #require(file.signer))
        #expect(SigningKeyVouch.verify(vouch, kid: retired.kid, retiredAt: retiredAt, held: [file]))
        #expect(!SigningKeyVouch.verify(vouch, kid: file.kid, retiredAt: retiredAt, held: [file]), "another kid")
        #expect(!SigningKeyVouch.verify(vouch, kid: retired.kid, retiredAt: retiredAt.addingTimeInterval(3600), held: [file]),
                "a moved retirement")
        #expect(!SigningKeyVouch.verify(vouch, kid: retired.kid, retiredAt: retiredAt, held: [retired]), "a voucher not held")
        #expect(!SigningKeyVouch.verify(vouch, kid: retired.kid, retiredAt: retiredAt, held: []))
    }

    @Test("a key that holds no private half, a JWS of another type, or garbage is no vouch")
    func refuses() throws {
        let file = try key(), retired = try key()
        let signer = try #require(file.signer)
        let publicOnly = SigningKey(kid: file.kid, publicKey: file.publicKey, publicJWK: file.publicJWK, signer: nil,
                                    activatesAt: .distantPast, retiredAt: nil)
        let vouch = try SigningKeyVouch.make(for: retired.kid, retiredAt: retiredAt, by: signer)
        #expect(!SigningKeyVouch.verify(vouch, kid: retired.kid, retiredAt: retiredAt, held: [publicOnly]))
        // The same claims as an ordinary JWT (typ JWT), as an access token would be signed.
        let plain = try signer.sign(claimsJSON: Array(#"{"retiredAt":1800000000,"vouches":"\#(retired.kid)"}"#.utf8))
        #expect(!SigningKeyVouch.verify(plain, kid: retired.kid, retiredAt: retiredAt, held: [file]))
        #expect(!SigningKeyVouch.verify("not.a.jws", kid: retired.kid, retiredAt: retiredAt, held: [file]))
    }
}
