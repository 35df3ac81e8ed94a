import Foundation
import JOSE
import JSON

/// A key file's word for a key it retired. With `SIGNING_KEY_FILE`, only keys whose private halves are in
/// the files are published, and a key they replaced while its last tokens may be live: the file key that
/// retired it signs that key's `kid` and retirement time (a JWS kept in the key's row). Whoever can write
/// `issuer.signing_keys` but holds no key file cannot make one, so a row they add, or a retirement they
/// move, is never published.
enum SigningKeyVouch {
    /// The JWS `typ` of a vouch: no access token has it, so neither passes for the other.
    static let type = "signing-key-vouch+jwt"

    private struct Claims: Codable {
        /// The `kid` of the key vouched for.
        let vouches: String
        /// When it retired, in whole seconds since 1970.
        let retiredAt: Int64
    }

    /// `signer`'s vouch for the key `kid` that retires at `retiredAt`.
    static func make(for kid: String, retiredAt: Date, by signer: JWTSigner) throws -> String {
        try signer.sign(header: ["typ": type], claimsJSON: MessageCoding.encodeSortingKeys(Claims(vouches: kid, retiredAt: seconds(retiredAt))))
    }

    /// Whether `vouch` was signed by one of `held` (keys whose private halves this replica holds) for the key
    /// `kid` retiring at `retiredAt`.
    static func verify(_ vouch: String, kid: String, retiredAt: Date, held: [SigningKey]) -> Bool {
        guard let jws = try? CompactJWS.parse(vouch, maxLength: 4096), jws.header.typ == type,
              let voucher = held.first(where: { $0.kid == jws.header.kid && $0.signer != nil }),
              let key = try? VerificationKey(voucher.publicJWK),
              (try? jws.verify(with: VerificationKeySet(keys: [key]), allowed: [.ES256, .EdDSA])) != nil,
              let claims = try? MessageCoding.decode(Claims.self, from: jws.payload) else { return false }
        return claims.vouches == kid && claims.retiredAt == seconds(retiredAt)
    }

    /// Whole seconds: what a timestamp read back from the table is sure to keep.
    private static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded())
    }
}
