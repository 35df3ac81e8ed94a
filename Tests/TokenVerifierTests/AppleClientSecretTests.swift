import Crypto
import Foundation
import JOSE
import Testing
@testable import TokenVerifier

/// Apple's client secret: the claims Apple requires, signed ES256 under the key ID, cached per
/// client ID and renewed before it expires.
@Suite("Apple client secret")
struct AppleClientSecretTests {
    private let key = try! PrivateKey.generateP256()

    private func secrets(lifetime: Duration = .seconds(30 * 86_400)) -> AppleClientSecret {
        var credentials = AppleCredentials(teamID: "TEAM123456", keyID: "KEY1234567", privateKey: key)
        credentials.clientSecretLifetime = lifetime
        return AppleClientSecret(credentials: credentials)
    }

    @Test("the secret is an ES256 JWT with kid, iss = team, sub = client, aud = Apple, at most six months")
    func claims() async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let secret = try await secrets(lifetime: .seconds(400 * 86_400)).secret(for: "com.example.app", now: now)
        let jws = try CompactJWS.parse(secret)
        #expect(jws.header.alg == "ES256")
        #expect(jws.header.kid == "KEY1234567")
        let verificationKey = try VerificationKey(kid: "KEY1234567", publicKey: key.publicKey, algorithm: .ES256)
        try jws.verify(with: VerificationKeySet(keys: [verificationKey]), allowed: [.ES256])
        let claims = try JWTClaims.decode(jws.payload)
        #expect(claims.iss == "TEAM123456")
        #expect(claims.sub == "com.example.app")
        #expect(claims.aud == ["https://appleid.apple.com"])
        #expect(claims.iat == 1_700_000_000)
        let lifetime = try #require(claims.exp) - 1_700_000_000
        #expect(lifetime == 15_777_000, "capped at six months")
    }

    @Test("one secret per client ID is reused, and renewed once half its lifetime has passed")
    func cachedAndRenewed() async throws {
        let secrets = secrets(lifetime: .seconds(86_400))
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let first = try await secrets.secret(for: "com.example.app", now: start)
        #expect(try await secrets.secret(for: "com.example.app", now: start.addingTimeInterval(3600)) == first)
        #expect(try await secrets.secret(for: "com.example.app.web", now: start) != first)
        let renewed = try await secrets.secret(for: "com.example.app", now: start.addingTimeInterval(43_201))
        #expect(renewed != first)
        #expect(try JWTClaims.decode(try CompactJWS.parse(renewed).payload).iat == 1_700_043_201)
    }
}

/// Sealed provider credentials open only with the same key, provider and subject.
@Suite("Credential sealing")
struct CredentialSealerTests {
    @Test("a sealed credential opens to what was sealed, and not for another subject, provider or key")
    func roundTrip() throws {
        let sealer = CredentialSealer(key: Array(repeating: 7, count: 32))
        let credential = ProviderCredential(clientId: "com.example.app", token: "r.secret-refresh-token")
        let sealed = try sealer.seal(credential, provider: .apple, subject: "001.abc")
        #expect(!sealed.contains("secret-refresh-token"))
        #expect(try sealer.open(sealed, provider: .apple, subject: "001.abc") == credential)
        #expect(throws: (any Error).self) { try sealer.open(sealed, provider: .apple, subject: "002.def") }
        #expect(throws: (any Error).self) { try sealer.open(sealed, provider: .naver, subject: "001.abc") }
        #expect(throws: (any Error).self) {
            try CredentialSealer(key: Array(repeating: 8, count: 32)).open(sealed, provider: .apple, subject: "001.abc")
        }
        #expect(throws: (any Error).self) { try sealer.open("not base64!", provider: .apple, subject: "001.abc") }
    }
}
