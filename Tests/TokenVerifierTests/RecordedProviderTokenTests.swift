import Contracts
import Foundation
import JOSE
import Testing
import TestVectors
@testable import TokenVerifier

/// The real provider-signed tokens of `Tests/Vectors/provider-tokens` through the verifier's own
/// OIDC path (key source fixed to the recorded keys, clock pinned).
@Suite("Recorded provider tokens through the OIDC verifier")
struct RecordedProviderTokenTests {
    private static func tokens() throws -> [ProviderTokenVectors.Token] {
        try ProviderTokenVectors.load()
    }

    private func verifier(for token: ProviderTokenVectors.Token, nonceMode: NonceMode = .sha256Hex,
                          allowsNonceWithoutRequest: Bool = true) throws -> OIDCVerifier {
        let set = VerificationKeySet(try ProviderTokenVectors.keySet(for: token))
        let provider: Provider = token.id.contains("apple") ? .apple : token.id.contains("kakao") ? .kakao : .google
        let configuration = OIDCProviderConfiguration(provider: provider, clientIDs: [token.expected_aud], issuers: [token.expected_iss],
                                                      jwksURL: "http://unused.invalid/jwks", algorithms: [.RS256, .ES256],
                                                      nonceMode: nonceMode, allowsTokenNonceWithoutRequest: allowsNonceWithoutRequest)
        return OIDCVerifier(configuration: configuration, keys: StaticKeySource(set: set), clockSkew: .seconds(60))
    }

    private static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    @Test("Google RS256 and ES256, Apple and Kakao tokens verify inside their validity window")
    func insideWindow() async throws {
        let tokens = try Self.tokens()
        for id in ["google-accounts-id-token-rs256", "google-iap-jwt-es256", "fastcrypto-apple-rs256", "fastcrypto-kakao-rs256"] {
            #expect(tokens.contains { $0.id == id }, "vector \(id) is present")
        }
        for token in tokens {
            let verifier = try verifier(for: token)
            let claims = try JWTClaims.decode(try CompactJWS.parse(token.token).payload)
            for now in [token.valid_now_window.from_inclusive, token.valid_now_window.suggested_now, token.valid_now_window.until_exclusive - 1] {
                let identity = try await verifier.verify(token: token.token, nonce: nil, now: Self.date(now))
                #expect(identity.subject == claims.sub, "\(token.id)")
                #expect(identity.provider == verifier.configuration.provider)
            }
        }
    }

    @Test("Each token is refused as expired after exp + leeway, and before iat − leeway")
    func outsideWindow() async throws {
        for token in try Self.tokens() {
            let verifier = try verifier(for: token)
            do {
                _ = try await verifier.verify(token: token.token, nonce: nil, now: Self.date(token.exp + 61))
                Issue.record("\(token.id) accepted after it expired")
            } catch {
                #expect(error.code == .providerTokenExpired, "\(token.id)")
            }
            do {
                _ = try await verifier.verify(token: token.token, nonce: nil, now: Self.date(token.iat - 61))
                Issue.record("\(token.id) accepted before it was issued")
            } catch {
                #expect(error.code == .invalidProviderToken, "\(token.id)")
            }
        }
    }

    @Test("Kakao's raw nonce matches in raw mode; Apple's token nonce is not the SHA-256 of that raw nonce")
    func nonces() async throws {
        let tokens = try Self.tokens()
        let kakao = try #require(tokens.first { $0.id == "fastcrypto-kakao-rs256" })
        let raw = try verifier(for: kakao, nonceMode: .raw, allowsNonceWithoutRequest: false)
        let now = Self.date(kakao.valid_now_window.suggested_now)
        let identity = try await raw.verify(token: kakao.token, nonce: "hTPpgF7XAKbW37rEUS6pEVZqmoI", now: now)
        #expect(identity.subject == "3095134389")
        do {
            _ = try await raw.verify(token: kakao.token, nonce: nil, now: now)
            Issue.record("a token nonce without a request nonce was accepted")
        } catch {
            #expect(error.code == .nonceMismatch)
        }

        let apple = try #require(tokens.first { $0.id == "fastcrypto-apple-rs256" })
        let hashed = try verifier(for: apple, nonceMode: .sha256Hex, allowsNonceWithoutRequest: false)
        do {
            _ = try await hashed.verify(token: apple.token, nonce: "hTPpgF7XAKbW37rEUS6pEVZqmoI",
                                        now: Self.date(apple.valid_now_window.suggested_now))
            Issue.record("Apple's raw nonce was accepted in SHA-256 mode")
        } catch {
            #expect(error.code == .nonceMismatch)
        }
    }

    @Test("A recorded token is refused for another audience or issuer")
    func wrongContext() async throws {
        let token = try #require(try Self.tokens().first { $0.id == "google-iap-jwt-es256" })
        let good = try verifier(for: token)
        var otherAudience = good.configuration
        otherAudience.clientIDs = ["someone-else"]
        var otherIssuer = good.configuration
        otherIssuer.issuers = ["https://accounts.google.com"]
        for configuration in [otherAudience, otherIssuer] {
            let verifier = OIDCVerifier(configuration: configuration, keys: good.keys, clockSkew: .seconds(60))
            do {
                _ = try await verifier.verify(token: token.token, nonce: nil, now: Self.date(token.valid_now_window.suggested_now))
                Issue.record("accepted in the wrong context")
            } catch {
                #expect(error.code == .invalidProviderToken)
            }
        }
    }
}
