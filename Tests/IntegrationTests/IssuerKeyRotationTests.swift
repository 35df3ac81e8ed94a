import Contracts
import Foundation
import JOSE
import Testing
import TestSupport

/// Signing keys rotate: the next key is published before it signs, and tokens of the old key are
/// still accepted (its key stays in the JWKS until its last token expired). On a stack of its own:
/// a rotation changes the key every token of its stack is signed with.
@Suite("Signing key rotation")
struct IssuerKeyRotationTests {
    private static let stack = TestStack.isolated()

    private func jwks(_ stack: RunningStack) async throws -> (JWKSet, APIResponse) {
        let response = try await stack.get("/.well-known/jwks.json")
        #expect(response.status == 200)
        return (try JSONDecoder().decode(JWKSet.self, from: Data(response.body)), response)
    }

    private func kid(_ token: String) throws -> String? {
        try CompactJWS.parse(token).header.kid
    }

    @Test("a rotation publishes the next key first, then signs with it; old tokens stay valid; PyJWT verifies both")
    func rotation() async throws {
        let stack = try await Self.stack.running()
        let before = try await stack.googleSession()
        let oldKid = try #require(try kid(before.accessToken))

        let rotation = try await stack.rotateSigningKeys()
        #expect(rotation.kid != oldKid)
        #expect(rotation.activatesAt > Date().addingTimeInterval(-0.5))
        // Until the next key's time comes, the old key still signs. (The stack publishes the next key
        // seconds ahead; a login slower than that would not show it, and says so.)
        let early = try await stack.googleSession()
        try #require(Date() < rotation.activatesAt,
                     "the login took until the next key's time (\(rotation.activatesAt)); nothing to see of the old key")
        #expect(try kid(early.accessToken) == oldKid)
        // Published at once (the gateway's copy follows the issuer's notice within moments).
        let published = try await eventually(timeout: .seconds(5)) {
            Set(try await jwks(stack).0.keys.compactMap(\.kid)).isSuperset(of: [oldKid, rotation.kid])
        }
        #expect(published)
        // A second request while the rotation is pending answers the same rotation.
        #expect(try await stack.rotateSigningKeys() == rotation)

        let wait = rotation.activatesAt.timeIntervalSinceNow + 0.5
        // The new key's activation time passes; the check is that the next token carries it then, not eventually.
        if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
        let after = try await stack.googleSession()
        #expect(try kid(after.accessToken) == rotation.kid)

        // The gateway accepts both: the new key and the retired one whose tokens are still live.
        #expect(try await stack.get("/api/members/me", bearer: after.accessToken).status == 200)
        #expect(try await stack.get("/api/members/me", bearer: before.accessToken).status == 200)
        // Refreshing a session from before the rotation gives tokens of the new key.
        let refreshed = try await stack.refresh(before.refreshToken).data(LoginResponse.self)
        #expect(try kid(refreshed.accessToken) == rotation.kid)

        let (set, response) = try await jwks(stack)
        #expect(Set(set.keys.compactMap(\.kid)).isSuperset(of: [oldKid, rotation.kid]))
        for key in set.keys {
            #expect(key.kty == "EC" || key.kty == "OKP")
        }
        for forbidden in ["d", "p", "q", "dp", "dq", "qi", "k"] {
            #expect(!response.text.contains("\"\(forbidden)\""), "JWKS leaks private member \(forbidden)")
        }

        // A third-party library verifies tokens of both keys against the published JWKS.
        let script = """
            import sys, jwt
            url, iss, aud = sys.argv[1:4]
            client = jwt.PyJWKClient(url)
            for token in sys.argv[4:]:
                key = client.get_signing_key_from_jwt(token)
                claims = jwt.decode(token, key.key, algorithms=["ES256", "EdDSA"], audience=aud, issuer=iss,
                                    options={"require": ["exp", "iat", "sub", "iss", "aud"]})
                print(jwt.get_unverified_header(token)["kid"], claims["sub"])
            """
        let output = try await runProcess("/usr/bin/env", ["python3", "-c", script, stack.gatewayURL + "/.well-known/jwks.json",
                                                     TestStack.tokenIssuer, TestStack.tokenAudience,
                                                     before.accessToken, after.accessToken])
        #expect(output.status == 0, "PyJWT rejected a token: \(output.error)")
        #expect(output.output.split(separator: "\n").map(String.init)
                == ["\(oldKid) \(before.memberId)", "\(rotation.kid) \(after.memberId)"])
    }
}
