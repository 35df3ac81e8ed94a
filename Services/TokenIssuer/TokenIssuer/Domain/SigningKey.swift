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

/// The rules of the key schedule: which key signs and which keys are published at a moment. Pure: the
/// keys and the time come in, so every replica that sees the same table decides the same.
enum SigningKeySchedule {
    /// The key of `keys` whose time to sign has come at `now`: the newest that activated and has not retired.
    static func active(in keys: [SigningKey], at now: Date) -> SigningKey? {
        keys.filter { $0.activatesAt <= now && ($0.retiredAt ?? .distantFuture) > now }.max { $0.activatesAt < $1.activatesAt }
    }

    /// The key this replica signs with at `now`: the active key when it holds its private key; otherwise,
    /// rather than fail every login, the newest key it holds that is still published (a key file removed
    /// before its successor activated, or the next key's file not yet arrived here). A key no longer
    /// published never signs again: no one could check its tokens.
    static func signing(in keys: [SigningKey], at now: Date, accessTokenTTL: Duration) -> SigningKey? {
        let held = published(keys, at: now, accessTokenTTL: accessTokenTTL).filter { $0.signer != nil }
        return active(in: held, at: now) ?? held.max { $0.activatesAt < $1.activatesAt }
    }

    /// The keys of `keys` to publish at `now`: a retired key stays until its last token expired.
    static func published(_ keys: [SigningKey], at now: Date, accessTokenTTL: Duration) -> [SigningKey] {
        let cutoff = now.addingTimeInterval(-accessTokenTTL.timeInterval)
        return keys.filter { ($0.retiredAt ?? .distantFuture) > cutoff }
    }
}
