import Contracts
import Crypto
import Foundation
import JOSE
import Testing
import TestVectors
@testable import TokenVerifier

/// Thousands of mutated tokens at the verifier: none is accepted, each is refused as an invalid
/// provider token, nothing crashes.
@Suite("Token fuzzing at the verifier")
struct TokenFuzzTests {
    static let audience = "fuzz-client"
    static let issuer = "https://fuzz.example"

    /// Signers for RS256, ES256 and EdDSA, a verifier that trusts all three, and a valid token of each.
    private static func setUp() throws -> (OIDCVerifier, [String]) {
        let signers = [
            JWTSigner(key: try PrivateKey.generateRSA(bits: 2048), kid: "rsa", algorithm: .RS256),
            JWTSigner(key: try PrivateKey.generateP256(), kid: "ec", algorithm: .ES256),
            JWTSigner(key: try PrivateKey.generateEd25519(), kid: "ed", algorithm: .EdDSA),
        ]
        let set = VerificationKeySet(JWKSet(keys: signers.map(\.jwk)))
        let configuration = OIDCProviderConfiguration(provider: .google, clientIDs: [audience], issuers: [issuer],
                                                      jwksURL: "http://unused.invalid", algorithms: [.RS256, .ES256, .EdDSA])
        let verifier = OIDCVerifier(configuration: configuration, keys: StaticKeySource(set: set), clockSkew: .seconds(60))
        let now = Int64(Date().timeIntervalSince1970)
        let claims = #"{"iss":"\#(issuer)","aud":"\#(audience)","sub":"fuzz-user","iat":\#(now),"exp":\#(now + 3600),"email":"f@example.com"}"#
        let tokens = try signers.map { try $0.sign(claimsJSON: Array(claims.utf8)) }
        return (verifier, tokens)
    }

    @Test("3,000 mutations of valid RS256, ES256 and EdDSA tokens: no acceptance, each INVALID_PROVIDER_TOKEN")
    func mutations() async throws {
        let (verifier, tokens) = try Self.setUp()
        for token in tokens {
            #expect(try await verifier.verify(token: token, nonce: nil).subject == "fuzz-user", "the unmutated token is valid")
        }
        var generator = SeededGenerator(seed: 0x5EED_1234)
        var tried = 0
        var seen: Set<String> = []
        while tried < 3000 {
            let original = tokens[tried % tokens.count]
            let mutated = TokenMutator.mutate(original, others: tokens, using: &generator)
            guard mutated != original, !tokens.contains(mutated), seen.insert(mutated).inserted else { continue }
            tried += 1
            // Verification is CPU-bound and never suspends here: leave the cooperative threads to others now and then.
            if tried % 50 == 0 { await Task.yield() }
            do {
                let identity = try await verifier.verify(token: mutated, nonce: nil)
                Issue.record("mutation accepted (subject \(identity.subject)): \(mutated.prefix(120))")
            } catch {
                #expect(error.code == .invalidProviderToken, "\(error) for \(mutated.prefix(120))")
            }
        }
        #expect(tried == 3000)
    }
}

/// Ways to spoil a compact JWS: bit flips, truncations, re-encoded or swapped segments, random
/// kids and algorithms, stray characters.
enum TokenMutator {
    static func mutate(_ token: String, others: [String], using generator: inout SeededGenerator) -> String {
        var bytes = Array(token.utf8)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: // flip one bit anywhere
            let index = Int.random(in: 0..<bytes.count, using: &generator)
            bytes[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            return String(decoding: bytes, as: UTF8.self)
        case 1: // truncate
            return String(decoding: bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)), as: UTF8.self)
        case 2: // flip a bit inside a decoded segment and re-encode it properly
            let segment = Int.random(in: 0..<3, using: &generator)
            guard var decoded = Base64URL.decode(parts[segment]), !decoded.isEmpty else { return token + "A" }
            decoded[Int.random(in: 0..<decoded.count, using: &generator)] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            var copy = parts
            copy[segment] = Base64URL.encode(decoded)
            return copy.joined(separator: ".")
        case 3: // swap a segment with another token's
            let other = others.randomElement(using: &generator)!.split(separator: ".").map(String.init)
            var copy = parts
            let segment = Int.random(in: 0..<3, using: &generator)
            copy[segment] = other[segment]
            return copy.joined(separator: ".")
        case 4: // a header with a random kid or algorithm
            let algorithms = ["none", "HS256", "RS256", "ES256", "EdDSA", "PS256", "ES512", "", "rs256"]
            let header = #"{"alg":"\#(algorithms.randomElement(using: &generator)!)","kid":"\#(UInt64.random(in: 0...UInt64.max, using: &generator))"}"#
            return ([Base64URL.encode(Array(header.utf8))] + parts.dropFirst()).joined(separator: ".")
        case 5: // re-encode the header or payload JSON with whitespace (same meaning, other bytes)
            let segment = Int.random(in: 0..<2, using: &generator)
            guard let decoded = Base64URL.decode(parts[segment]) else { return token + "." }
            let spaced = String(decoding: decoded, as: UTF8.self).replacingOccurrences(of: ",", with: ", ")
            var copy = parts
            copy[segment] = Base64URL.encode(Array(spaced.utf8))
            return copy.joined(separator: ".")
        case 6: // insert a stray character
            let stray: [UInt8] = [0x2E, 0x3D, 0x2B, 0x2F, 0x20, 0x00, 0x0A, 0xFF, 0x7E]
            bytes.insert(stray.randomElement(using: &generator)!, at: Int.random(in: 0...bytes.count, using: &generator))
            return String(decoding: bytes, as: UTF8.self)
        case 7: // drop or duplicate a segment
            return Bool.random(using: &generator) ? parts.prefix(2).joined(separator: ".") : (parts + [parts[1]]).joined(separator: ".")
        case 8: // an empty or stripped signature
            return parts[0] + "." + parts[1] + "." + (Bool.random(using: &generator) ? "" : String(parts[2].prefix(10)))
        default: // random bytes of a random length
            let length = Int.random(in: 0..<600, using: &generator)
            return String(decoding: (0..<length).map { _ in UInt8.random(in: 0x21...0x7E, using: &generator) }, as: UTF8.self)
        }
    }
}
