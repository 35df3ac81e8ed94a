import Contracts
import Crypto
import DevIDP
import Foundation
import JSON
import Testing
import TestSupport

/// Every verification rule of docs/providers.md, through the gateway: the exact status and code.
@Suite("Verifier rules through the gateway")
struct VerifierRuleTests {
    private func login(_ stack: RunningStack, _ token: String, provider: String = "google", nonce: String? = nil) async throws -> APIResponse {
        switch provider {
        case "kakao":
            return try await stack.post("/api/auth/kakao-login", json: KakaoLoginBody(idToken: token, deviceId: "device-1", nonce: nonce))
        case "apple":
            return try await stack.post("/api/auth/apple-login", json: AppleLoginBody(identityToken: token, deviceId: "device-1", rawNonce: nonce))
        default:
            return try await stack.post("/api/auth/google-login", json: GoogleLoginBody(idToken: token, deviceId: "device-1", nonce: nonce))
        }
    }

    private func expect(_ response: APIResponse, _ status: Int, _ code: ErrorCode? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == status, "body: \(response.text)", sourceLocation: sourceLocation)
        if let code { #expect(response.failure?.code == code, "body: \(response.text)", sourceLocation: sourceLocation) }
    }

    private var now: Int64 { Int64(Date().timeIntervalSince1970) }

    @Test("alg none, HS256 (keyed with the public key), PS256 and a lowercase alg are refused", arguments: [
        ("none", [String: JSONValue]?.none), ("HS256", nil), ("RS256", ["alg": .string("PS256")]), ("RS256", ["alg": .string("rs256")]),
    ])
    func refusedAlgorithms(_ algorithm: String, _ header: [String: JSONValue]?) async throws {
        let stack = try await TestStack.shared.running()
        let kid = try #require(await stack.idp.signingJWK("google")?.kid)
        let token = try await stack.idToken("google", sub: RunningStack.uniqueSubject(), algorithm: algorithm,
                                            header: (header ?? [:]).merging(["kid": .string(kid)]) { a, _ in a })
        expect(try await login(stack, token), 401, .invalidProviderToken)
    }

    @Test("an algorithm that does not match the key's type is refused (ES256 signature under an RSA key's kid)")
    func algorithmKeyMismatch() async throws {
        let stack = try await TestStack.shared.running()
        let rsaKid = try #require(await stack.idp.signingJWK("google")?.kid)
        let token = try await stack.idToken("google", sub: RunningStack.uniqueSubject(), algorithm: "ES256", header: ["kid": .string(rsaKid)])
        expect(try await login(stack, token), 401, .invalidProviderToken)
        let edKid = try #require(await stack.idp.signingJWK("google", algorithm: "EdDSA")?.kid)
        let relabelled = try await stack.idToken("google", sub: RunningStack.uniqueSubject(), algorithm: "ES256",
                                                 header: ["kid": .string(edKid)])
        expect(try await login(stack, relabelled), 401, .invalidProviderToken)
    }

    @Test("ES256 and EdDSA tokens are accepted where configured; a provider allowing only RS256 refuses them")
    func configuredAlgorithms() async throws {
        let stack = try await TestStack.shared.running()
        // Under Kakao's published kid: an unknown kid would spend Kakao's refetch budget, which
        // the key rotation suite needs.
        let kakaoKid = try #require(await stack.idp.signingJWK("kakao")?.kid)
        for algorithm in ["ES256", "EdDSA"] {
            let google = try await stack.idToken("google", sub: RunningStack.uniqueSubject(), algorithm: algorithm)
            expect(try await login(stack, google), 200)
            let kakao = try await stack.idToken("kakao", sub: RunningStack.uniqueSubject(), algorithm: algorithm,
                                                header: ["kid": .string(kakaoKid)])
            expect(try await login(stack, kakao, provider: "kakao"), 401, .invalidProviderToken)
        }
    }

    @Test("an unknown crit header is refused")
    func unknownCritical() async throws {
        let stack = try await TestStack.shared.running()
        let token = try await stack.idToken("google", sub: RunningStack.uniqueSubject(),
                                            header: ["crit": .array([.string("exp")]), "exp": .integer(now + 60)])
        expect(try await login(stack, token), 401, .invalidProviderToken)
    }

    @Test("jku, x5u and jwk headers are never followed or trusted")
    func keyReferencesIgnored() async throws {
        let stack = try await TestStack.shared.running()
        let before = await stack.idp.stats().unpublishedJWKSFetches
        let attackerKey = try #require(await stack.idp.signingJWK("google", unpublished: true))
        let jwk = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(attackerKey))
        let token = try await stack.mint("google", MintRequest(
            claims: ["sub": .string(RunningStack.uniqueSubject()), "aud": .string(TestStack.ClientID.googleIOS)],
            unpublishedKey: true,
            header: ["jku": .string(stack.devIDPURL + "/google/unpublished-jwks"), "x5u": .string(stack.devIDPURL + "/google/unpublished-jwks"),
                     "jwk": jwk]))
        expect(try await login(stack, token), 401, .invalidProviderToken)
        #expect(await stack.idp.stats().unpublishedJWKSFetches == before, "the jku URL was fetched")
    }

    @Test("iss must match exactly", arguments: ["/", "?", "#x"])
    func issuerExact(_ suffix: String) async throws {
        let stack = try await TestStack.shared.running()
        let issuer = stack.idp.issuer("google")
        for variant in [issuer + suffix, issuer.uppercased(), " " + issuer] {
            let token = try await stack.idToken("google", sub: RunningStack.uniqueSubject(), claims: ["iss": .string(variant)])
            expect(try await login(stack, token), 401, .invalidProviderToken)
        }
    }

    @Test("aud must contain a configured client ID; with several audiences azp must be one too")
    func audienceAndAuthorizedParty() async throws {
        let stack = try await TestStack.shared.running()
        let ios = JSONValue.string(TestStack.ClientID.googleIOS)
        let cases: [([String: JSONValue], Int)] = [
            (["aud": .array([ios, .string("other-app")]), "azp": ios], 200),
            (["aud": .array([.string("other-app"), .string(TestStack.ClientID.googleWeb)]), "azp": .string(TestStack.ClientID.googleWeb)], 200),
            (["aud": .array([ios, .string("other-app")]), "azp": .null], 401),
            (["aud": .array([ios, .string("other-app")]), "azp": .string("other-app")], 401),
            (["aud": .array([.string("a"), .string("b")]), "azp": ios], 401),
            (["aud": .string(TestStack.ClientID.googleWeb), "azp": .string("unconfigured-presenter")], 200),
            (["aud": .array([])], 401),
            (["aud": .null], 401),
        ]
        for (claims, status) in cases {
            let token = try await stack.idToken("google", sub: RunningStack.uniqueSubject(), claims: claims)
            expect(try await login(stack, token), status, status == 401 ? .invalidProviderToken : nil)
        }
    }

    @Test("exp, nbf and iat are checked with a 60 s leeway")
    func timesWithLeeway() async throws {
        let stack = try await TestStack.shared.running()
        let cases: [([String: JSONValue], Int, ErrorCode?)] = [
            (["exp": .integer(now - 30), "iat": .integer(now - 600)], 200, nil),
            (["exp": .integer(now - 120), "iat": .integer(now - 600)], 401, .providerTokenExpired),
            (["nbf": .integer(now + 30)], 200, nil),
            (["nbf": .integer(now + 300)], 401, .invalidProviderToken),
            (["iat": .integer(now + 30)], 200, nil),
            (["iat": .integer(now + 300)], 401, .invalidProviderToken),
            (["iat": .null], 401, .invalidProviderToken),
            (["exp": .string("tomorrow")], 401, .invalidProviderToken),
        ]
        for (claims, status, code) in cases {
            let token = try await stack.idToken("google", sub: RunningStack.uniqueSubject(), claims: claims)
            expect(try await login(stack, token), status, code)
        }
    }

    @Test("a token over 8 KiB is refused, even validly signed; one just under is accepted")
    func sizeLimit() async throws {
        let stack = try await TestStack.shared.running()
        let large = try await stack.idToken("google", sub: RunningStack.uniqueSubject(), claims: ["pad": .string(String(repeating: "x", count: 7000))])
        #expect(large.utf8.count > 8192)
        expect(try await login(stack, large), 401, .invalidProviderToken)
        let fits = try await stack.idToken("google", sub: RunningStack.uniqueSubject(), claims: ["pad": .string(String(repeating: "x", count: 5500))])
        #expect(fits.utf8.count <= 8192)
        expect(try await login(stack, fits), 200)
    }

    @Test("malformed tokens are a 401, never a crash or a 5xx", arguments: [
        "eyJhbGciOiJSUzI1NiJ9", "eyJhbGciOiJSUzI1NiJ9.e30", "eyJhbGciOiJSUzI1NiJ9.e30.e30.e30", ".e30.", "eyJ9.e30.AA",
        "W10.e30.AA", "eyJhbGciOjF9.e30.AA", "eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.AA", "eyJhbGciOiJSUzI1NiJ9.e30.AA==",
        "eyJhbGciOiJSUzI1NiJ9.e30.A+/", "ëyJ.e30.AA", "eyJhbGciOiJSUzI1NiJ9.W10.AA", "eyJhbGciOiJSUzI1NiJ9.IjEi.AA",
    ])
    func malformed(_ token: String) async throws {
        let stack = try await TestStack.shared.running()
        expect(try await login(stack, token), 401, .invalidProviderToken)
    }
}
