import Contracts
import Foundation
import JOSE
import Testing
import TestSupport

/// A Google login end to end: gateway over HTTP → verifier → member-service → issuer, on the
/// real nats-server and PostgreSQL.
@Suite("Google login end to end")
struct GoogleLoginTests {
    @Test("first login creates a member; the same identity again finds it")
    func firstAndRepeatLogin() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()

        let first = try await stack.googleLogin(sub: sub)
        #expect(first.status == 200)
        let created = try first.data(LoginResponse.self)
        #expect(created.isExistingMember == false)
        #expect(created.tokenType == "Bearer")
        #expect(created.expiresIn == 900)
        #expect(created.memberId > 0)
        #expect(!created.accessToken.isEmpty && !created.refreshToken.isEmpty)
        // memberId is a JSON number, not a string.
        guard case .object(let data) = first.object?["data"], case .integer = data["memberId"] else {
            Issue.record("memberId is not a JSON number: \(first.text)")
            return
        }

        let again = try await stack.googleLogin(sub: sub)
        #expect(again.status == 200)
        let existing = try again.data(LoginResponse.self)
        #expect(existing.memberId == created.memberId)
        #expect(existing.isExistingMember == true)

        let other = try await stack.googleLogin(sub: RunningStack.uniqueSubject())
        #expect(try other.data(LoginResponse.self).memberId != created.memberId)
    }

    @Test("the access token names the member and the session, signed with a key the JWKS publishes")
    func accessTokenClaims() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()

        let jwksResponse = try await stack.get("/.well-known/jwks.json")
        #expect(jwksResponse.status == 200)
        let jwks = try JSONDecoder().decode(JWKSet.self, from: Data(jwksResponse.body))
        #expect(!jwks.keys.isEmpty)
        for forbidden in ["d", "p", "q", "dp", "dq", "qi", "k"] {
            #expect(!jwksResponse.text.contains("\"\(forbidden)\""), "JWKS leaks private member \(forbidden)")
        }

        let jws = try CompactJWS.parse(login.accessToken)
        #expect(jws.header.alg == "ES256")
        try jws.verify(with: VerificationKeySet(jwks), allowed: [.ES256])
        let claims = try JSONDecoder().decode(AccessTokenClaims.self, from: Data(jws.payload))
        #expect(claims.sub == String(login.memberId))
        #expect(claims.iss == TestStack.tokenIssuer)
        #expect(claims.aud == TestStack.tokenAudience)
        #expect(claims.exp - claims.iat == 900)
        #expect(!claims.sid.isEmpty && !claims.jti.isEmpty)
    }

    @Test("PyJWT, a third-party library, verifies the access token against /.well-known/jwks.json")
    func thirdPartyVerification() async throws {
        let (stack, login) = try await TestStack.shared.runningWithSession()
        let script = """
            import sys, jwt
            token, url, iss, aud = sys.argv[1:5]
            key = jwt.PyJWKClient(url).get_signing_key_from_jwt(token)
            claims = jwt.decode(token, key.key, algorithms=["ES256", "EdDSA"], audience=aud, issuer=iss,
                                options={"require": ["exp", "iat", "sub", "iss", "aud"]})
            print(claims["sub"])
            """
        let output = try await runProcess("/usr/bin/env", ["python3", "-c", script, login.accessToken,
                                                     stack.gatewayURL + "/.well-known/jwks.json",
                                                     TestStack.tokenIssuer, TestStack.tokenAudience])
        #expect(output.status == 0, "PyJWT rejected the token: \(output.error)")
        #expect(output.output.trimmingCharacters(in: .whitespacesAndNewlines) == String(login.memberId))

        // The same library refuses the token for another audience.
        let wrong = try await runProcess("/usr/bin/env", ["python3", "-c", script, login.accessToken,
                                                    stack.gatewayURL + "/.well-known/jwks.json",
                                                    TestStack.tokenIssuer, "someone-else"])
        #expect(wrong.status != 0)
    }

    @Test("GET /api/members/me answers with the member behind the Bearer token")
    func me() async throws {
        let stack = try await TestStack.shared.running()
        let sub = RunningStack.uniqueSubject()
        let login = try await stack.googleSession(sub: sub)

        let response = try await stack.get("/api/members/me", bearer: login.accessToken)
        #expect(response.status == 200)
        let member = try response.data(MemberResponse.self)
        #expect(member.memberId == login.memberId)
        #expect(member.email == "\(sub)@example.com")
        #expect(member.identities.map(\.provider) == ["GOOGLE"])
    }
}
