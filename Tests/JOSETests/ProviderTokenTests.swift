import Crypto
import Foundation
import JOSE
import Testing
import TestVectors

/// Google's legacy v1/certs format: kid → X.509 certificate PEM.
private typealias LegacyCertificates = [String: String]

@Suite("Real provider-signed tokens (provider-tokens.json)")
struct ProviderTokenTests {
    private func load() throws -> [ProviderTokenVectors.Token] {
        try ProviderTokenVectors.load()
    }

    private func keys(for token: ProviderTokenVectors.Token) throws -> VerificationKeySet {
        VerificationKeySet(try ProviderTokenVectors.keySet(for: token))
    }

    /// The expected issuer and audience, nothing more: with a single audience a token's `azp` (Google
    /// service accounts put their own client ID there) is not checked.
    private func rules(for token: ProviderTokenVectors.Token, _ claims: JWTClaims) -> ClaimRules {
        ClaimRules(issuers: [token.expected_iss], audiences: [token.expected_aud])
    }

    @Test("Each token verifies with its key and passes the claim rules inside its validity window")
    func verifyInsideWindow() throws {
        let tokens = try load()
        #expect(tokens.count == 7)
        for token in tokens {
            let keys = try keys(for: token)
            #expect(keys.kids.contains(token.kid), "\(token.id): kid in key set")
            let jws = try CompactJWS.parse(token.token)
            #expect(jws.header.alg == token.alg && jws.header.kid == token.kid)
            let key = try jws.verify(with: keys, allowed: [.RS256, .ES256])
            #expect(key.kid == token.kid)
            let claims = try JWTClaims.decode(jws.payload)
            #expect(claims.iat == token.iat && claims.exp == token.exp, "\(token.id): iat/exp")
            let window = token.valid_now_window
            for now in [window.from_inclusive, window.suggested_now, window.until_exclusive - 1] {
                try rules(for: token, claims).check(claims, now: Fixture.date(now))
            }
        }
    }

    @Test("Each token is refused as expired after exp + leeway and as issued in the future before iat − leeway")
    func refuseOutsideWindow() throws {
        for token in try load() {
            let claims = try JWTClaims.decode(try CompactJWS.parse(token.token).payload)
            let rules = rules(for: token, claims)
            #expect(throws: JOSEError.expired, "\(token.id)") { try rules.check(claims, now: Fixture.date(token.exp + 60)) }
            #expect(throws: JOSEError.expired) { try rules.check(claims, now: Fixture.date(token.exp + 86_400 * 365)) }
            #expect(throws: JOSEError.issuedInFuture, "\(token.id)") { try rules.check(claims, now: Fixture.date(token.iat - 61)) }
            var strict = rules
            strict.leeway = .zero
            #expect(throws: JOSEError.expired) { try strict.check(claims, now: Fixture.date(token.exp)) }
        }
    }

    @Test("Each token is refused for another issuer or audience, and with a flipped signature bit")
    func refuseWrongContext() throws {
        for token in try load() {
            let jws = try CompactJWS.parse(token.token)
            let claims = try JWTClaims.decode(jws.payload)
            let now = Fixture.date(token.valid_now_window.suggested_now)
            #expect(throws: JOSEError.wrongIssuer) {
                try ClaimRules(issuers: ["https://evil.example"], audiences: rules(for: token, claims).audiences).check(claims, now: now)
            }
            #expect(throws: JOSEError.wrongAudience) {
                try ClaimRules(issuers: [token.expected_iss], audiences: ["someone-else"]).check(claims, now: now)
            }
            var parts = token.token.split(separator: ".").map(String.init)
            var signature = try Fixture.b64(parts[2])
            signature[signature.count / 2] ^= 0x01
            parts[2] = Base64URL.encode(signature)
            let tampered = try CompactJWS.parse(parts.joined(separator: "."))
            #expect(throws: JOSEError.badSignature) { try tampered.verify(with: keys(for: token), allowed: [.RS256, .ES256]) }
        }
    }

    @Test("With a single matching aud, an azp that is not a configured client ID is accepted")
    func unconfiguredAuthorizedParty() throws {
        var checked = 0
        for token in try load() {
            let claims = try JWTClaims.decode(try CompactJWS.parse(token.token).payload)
            guard let party = claims.azp, party != token.expected_aud else { continue }
            #expect(claims.aud == [token.expected_aud])
            #expect(throws: Never.self) {
                try ClaimRules(issuers: [token.expected_iss], audiences: [token.expected_aud])
                    .check(claims, now: Fixture.date(token.valid_now_window.suggested_now))
            }
            checked += 1
        }
        #expect(checked == 2, "both Google service-account tokens carry their own azp")
    }

    @Test("Google's first token also verifies with the X.509 certificate of the legacy v1/certs format")
    func legacyCertificate() throws {
        let token = try #require(try load().first { $0.id == "google-accounts-id-token-rs256" })
        let certificates = try VectorFiles.load(LegacyCertificates.self, "provider-tokens/google-auth-library-java/legacy_federated_keys.json")
        let pem = try #require(certificates[token.kid])
        let publicKey = try PublicKey.pem(pem)
        #expect(publicKey.kind == .rsa(bits: 2048))
        let keys = VerificationKeySet(keys: [try VerificationKey(kid: token.kid, publicKey: publicKey, algorithm: .RS256)])
        try CompactJWS.parse(token.token).verify(with: keys, allowed: [.RS256])
    }

    @Test("The IAP ES256 token is refused when only RS256 is allowed, and by the other four P-256 keys")
    func iapKeySelection() throws {
        let token = try #require(try load().first { $0.alg == "ES256" })
        let set = try VectorFiles.load(JWKSet.self, "provider-tokens/\(try #require(token.key_file))")
        #expect(set.keys.count == 5)
        let jws = try CompactJWS.parse(token.token)
        #expect(throws: JOSEError.algorithmNotAllowed) { try jws.verify(with: VerificationKeySet(set), allowed: [.RS256]) }
        for other in set.keys where other.kid != token.kid {
            var impostor = other
            impostor.kid = token.kid
            #expect(throws: JOSEError.badSignature) {
                try jws.verify(with: VerificationKeySet(JWKSet(keys: [impostor])), allowed: [.ES256])
            }
        }
    }
}
