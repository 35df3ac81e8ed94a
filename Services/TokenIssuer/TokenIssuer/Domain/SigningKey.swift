import Crypto
import Foundation
import JOSE

/// A signing key as the issuer uses it, with its place in the schedule every replica follows.
struct SigningKey: Sendable {
    let kid: String
    let publicKey: PublicKey
    let publicJWK: JWK
    /// Nil when this replica does not hold the private key (a key file that has not reached it yet).
    let signer: JWTSigner?
    let activatesAt: Date
    let retiredAt: Date?
}

extension SigningKey {
    /// A key from its private key in PEM.
    init(pem: String, activatesAt: Date, retiredAt: Date?) throws {
        try self.init(privateKey: try PrivateKey(pem: pem), activatesAt: activatesAt, retiredAt: retiredAt)
    }

    /// A key from its private key; its `kid` is its JWK thumbprint, the same on every replica.
    init(privateKey: PrivateKey, activatesAt: Date, retiredAt: Date?) throws {
        let algorithm = try Self.algorithm(for: privateKey.kind)
        let kid = try JWK(publicKey: privateKey.publicKey, kid: "", alg: algorithm).thumbprint()
        self.init(kid: kid, publicKey: privateKey.publicKey, publicJWK: JWK(publicKey: privateKey.publicKey, kid: kid, alg: algorithm),
                  signer: JWTSigner(key: privateKey, kid: kid, algorithm: algorithm), activatesAt: activatesAt, retiredAt: retiredAt)
    }

    /// The JWS algorithm the issuer signs with for a key of `kind`: ES256 for P-256, EdDSA for Ed25519.
    static func algorithm(for kind: KeyKind) throws -> JWSAlgorithm {
        switch kind {
        case .p256: .ES256
        case .ed25519: .EdDSA
        default: throw IssuerError.unsupportedSigningKey
        }
    }
}
