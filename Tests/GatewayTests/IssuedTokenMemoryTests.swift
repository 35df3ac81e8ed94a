import Contracts
import Crypto
import Foundation
import JOSE
import Logging
import Metrics
import Testing
@testable import Gateway

/// A token the issuer hands out through the gateway is remembered as verified, from the claims sent beside
/// it when they match it, so the app's next request costs no signature check and no parse.
@Suite("Issued access tokens are remembered as verified")
struct IssuedTokenMemoryTests {
    private static let logger = Logger(label: "gateway-test", level: .critical)

    private func verifier() -> AccessTokenVerifier {
        AccessTokenVerifier(issuer: "i", audience: "a", leeway: .seconds(0), maxCached: 100, logger: Self.logger, metrics: MetricsRegistry())
    }

    private func pair(_ token: String, _ claims: AccessTokenClaims?) -> TokenPair {
        TokenPair(accessToken: token, refreshToken: "r", expiresIn: 900, memberId: 1, sessionId: "s", claims: claims, keyId: "k")
    }

    @Test("with the claims beside it, the token is not parsed; claims that are not this service's are not taken")
    func claimsBesideTheToken() throws {
        let now = Int64(Date().timeIntervalSince1970)
        let ours = AccessTokenClaims(iss: "i", aud: "a", sub: "1", sid: "s", iat: now, exp: now + 900, jti: "j")
        let verifier = verifier()
        verifier.rememberIssued(pair("not-a-jwt", ours))
        #expect(verifier.cachedCount == 1)
        var foreign = ours
        foreign.aud = "other"
        verifier.rememberIssued(pair("also-not-a-jwt", foreign))
        #expect(verifier.cachedCount == 1)
        // Claims of another session or member, or without a kid (key revocation finds tokens by it): parsed, so
        // a token that is no JWT is not remembered.
        var otherSession = ours
        otherSession.sid = "other"
        verifier.rememberIssued(pair("not-a-jwt-2", otherSession))
        var otherMember = ours
        otherMember.sub = "2"
        verifier.rememberIssued(pair("not-a-jwt-3", otherMember))
        verifier.rememberIssued(TokenPair(accessToken: "not-a-jwt-4", refreshToken: "r", expiresIn: 900, memberId: 1, sessionId: "s",
                                          claims: ours, keyId: nil))
        #expect(verifier.cachedCount == 1)
        // Foreign claims beside a token of ours: the token is parsed and remembered.
        let signer = JWTSigner(key: try PrivateKey.generateP256(), kid: "k", algorithm: .ES256)
        verifier.rememberIssued(pair(try signer.sign(ours), foreign))
        #expect(verifier.cachedCount == 2)
    }
}
