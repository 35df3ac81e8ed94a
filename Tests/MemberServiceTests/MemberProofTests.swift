import Authentication
import Contracts
import Crypto
import Foundation
import JOSE
import Testing

/// The member-service's check of a member-scoped request's access token (`MemberProof`), and the tokens the
/// issuer's answer to a login notes as issued (`IssuedTokenNote`), which it then takes without a signature check.
@Suite("A member's proof, and the tokens the issuer notes as issued")
struct MemberProofTests {
    private static let now = Int64(Date().timeIntervalSince1970)
    private static let claims = AccessTokenClaims(iss: "i", aud: "a", sub: "7", sid: "s", iat: now, exp: now + 900, jti: "j")

    /// A proof that trusts the key `kid` (and no other), for tokens of issuer `i` and audience `a`.
    private func proof(kid: String = "k") throws -> (MemberProof, JWTSigner) {
        let key = try PrivateKey.generateP256()
        let signer = JWTSigner(key: key, kid: kid, algorithm: .ES256)
        let set = VerificationKeySet(keys: [try VerificationKey(kid: kid, publicKey: key.publicKey, algorithm: .ES256)])
        let proof = MemberProof(leeway: .seconds(0)) { _ in MemberProof.TrustedKeys(set: set, issuer: "i", audience: "a") }
        return (proof, signer)
    }

    private func note(_ token: String, _ claims: AccessTokenClaims = claims, kid: String? = "k") -> [String: String] {
        IssuedTokenNote.headers(for: TokenPair(accessToken: token, refreshToken: "r", expiresIn: 900, memberId: 7, sessionId: "s",
                                               claims: claims, keyId: kid))
    }

    private func refused(_ proof: MemberProof, _ token: String, memberId: Int64 = 7) async -> Bool {
        do {
            try await proof.claims(of: token, memberId: memberId)
            return false
        } catch {
            return error.code == .unauthorized
        }
    }

    @Test("a signed token of the member passes; another member's, or one signed by a key not published, does not")
    func signatureChecked() async throws {
        let (proof, signer) = try proof()
        let token = try signer.sign(Self.claims)
        #expect(try await proof.claims(of: token, memberId: 7) == Self.claims)
        // Remembered, still refused for another member.
        #expect(await refused(proof, token, memberId: 8))
        let stranger = JWTSigner(key: try PrivateKey.generateP256(), kid: "k", algorithm: .ES256)
        #expect(await refused(proof, try stranger.sign(Self.claims)))
    }

    @Test("a token the issuer noted is taken without a signature check, by the claims noted, for its member only")
    func notedTokenTaken() async throws {
        let (proof, _) = try proof()
        // No JWT at all: only the note can make it pass.
        #expect(await refused(proof, "noted-token"))
        proof.rememberIssued(note("noted-token"))
        #expect(try await proof.claims(of: "noted-token", memberId: 7) == Self.claims)
        #expect(await refused(proof, "noted-token", memberId: 8))
        // The note is of that token's text only.
        #expect(await refused(proof, "noted-token2"))
    }

    @Test("a note that has expired, names a key not published, another issuer or audience, or does not read, is no proof")
    func notesThatCountForNothing() async throws {
        let (proof, _) = try proof()
        var expired = Self.claims
        expired.exp = Self.now - 1
        proof.rememberIssued(note("expired", expired))
        var foreignIssuer = Self.claims
        foreignIssuer.iss = "other"
        proof.rememberIssued(note("foreign-issuer", foreignIssuer))
        var foreignAudience = Self.claims
        foreignAudience.aud = "other"
        proof.rememberIssued(note("foreign-audience", foreignAudience))
        proof.rememberIssued(note("unpublished-key", kid: "gone"))
        proof.rememberIssued(note("no-kid", kid: nil))
        proof.rememberIssued([IssuedTokenNote.header: "not base64url JSON"])
        proof.rememberIssued([:])
        for token in ["expired", "foreign-issuer", "foreign-audience", "unpublished-key", "no-kid"] {
            #expect(await refused(proof, token), "\(token) passed")
        }
        #expect(note("no-kid", kid: nil).isEmpty)
    }
}
