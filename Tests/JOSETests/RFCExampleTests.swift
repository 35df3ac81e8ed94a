import Crypto
import Foundation
import JOSE
import Testing
import TestVectors

private struct RFCExamples: Decodable {
    struct Expected: Decodable {
        let signature_valid: Bool?
    }

    struct Example: Decodable {
        let id: String
        let alg: String
        let jwk: JWK?
        let jws: String
        let expected: Expected
        let private_jwk_for_signing_tests: PrivateJWK?
        let payload: String
    }

    struct Negative: Decodable {
        let id: String
        let jwk: JWK?
        let jws: String
        let expected: Expected
    }

    struct NegativeCases: Decodable {
        let cases: [Negative]
    }

    let examples: [Example]
    let derived_negative_cases: NegativeCases
}

private let ours = Set(JWSAlgorithm.allCases)

private func keySet(_ jwk: JWK?) -> VerificationKeySet {
    VerificationKeySet(JWKSet(keys: jwk.map { [$0] } ?? []))
}

@Suite("RFC 7515 / 7520 / 8037 JWS examples (jws-rfc-examples.json)")
struct RFCExampleTests {
    private func load() throws -> RFCExamples {
        try VectorFiles.load(RFCExamples.self, "jws-rfc-examples.json")
    }

    @Test("RS256, ES256 and EdDSA examples verify; HS256, none, PS384 and ES512 are refused as unsupported")
    func examples() throws {
        let file = try load()
        #expect(file.examples.count == 9)
        var verified: [String] = []
        for example in file.examples {
            let jws = try CompactJWS.parse(example.jws)
            #expect(jws.header.alg == example.alg)
            #expect(jws.payload == Array(example.payload.utf8), "\(example.id): payload")
            if JWSAlgorithm(rawValue: example.alg) != nil {
                #expect(example.expected.signature_valid == true)
                try jws.verify(with: keySet(example.jwk), allowed: ours)
                verified.append(example.id)
            } else {
                #expect(throws: JOSEError.unsupportedAlgorithm, "\(example.id) must be refused") {
                    try jws.verify(with: keySet(example.jwk), allowed: ours)
                }
            }
        }
        #expect(verified == ["rfc7515-A.2-RS256", "rfc7515-A.3-ES256", "rfc8037-A.4-EdDSA-Ed25519", "rfc7520-4.1-RS256"])
    }

    @Test("A verified algorithm outside the caller's allowed set is refused")
    func allowedSetIsEnforced() throws {
        let example = try #require(try load().examples.first { $0.id == "rfc7515-A.3-ES256" })
        let jws = try CompactJWS.parse(example.jws)
        #expect(throws: JOSEError.algorithmNotAllowed) { try jws.verify(with: keySet(example.jwk), allowed: [.RS256]) }
    }

    @Test("The RFC 7515 claims decode (CRLF inside the JSON), the RFC 8037 and 7520 text payloads do not")
    func payloads() throws {
        let file = try load()
        let a2 = try #require(file.examples.first { $0.id == "rfc7515-A.2-RS256" })
        let claims = try JWTClaims.decode(try CompactJWS.parse(a2.jws).payload)
        #expect(claims.iss == "joe")
        #expect(claims.exp == 1_300_819_380)
        #expect(claims.raw["http://example.com/is_root"] == .bool(true))
        for id in ["rfc8037-A.4-EdDSA-Ed25519", "rfc7520-4.1-RS256"] {
            let example = try #require(file.examples.first { $0.id == id })
            #expect(throws: JOSEError.malformed) { try JWTClaims.decode(try CompactJWS.parse(example.jws).payload) }
        }
    }

    @Test("Every derived negative case is refused; the high-S twin is a valid plain-ECDSA signature")
    func derivedNegatives() throws {
        let cases = try load().derived_negative_cases.cases
        #expect(cases.count == 10)
        var refused = 0
        for negative in cases {
            let accepted = (try? CompactJWS.parse(negative.jws).verify(with: keySet(negative.jwk), allowed: ours)) != nil
            if negative.id == "info-A.3-sig-high-s-twin" {
                // Policy: like RFC 7518, we do not enforce low-S, so the malleated twin verifies.
                #expect(accepted, "high-S twin is a valid ECDSA signature")
            } else {
                #expect(negative.expected.signature_valid != true)
                #expect(!accepted, "\(negative.id) must be refused")
                refused += 1
            }
        }
        #expect(refused == 9)
    }

    @Test("Re-signing with the RFC private keys: RS256 and EdDSA reproduce the signatures, ES256 verifies")
    func resigning() throws {
        let file = try load()
        var resigned = 0
        for example in file.examples {
            guard let privateJWK = example.private_jwk_for_signing_tests,
                  let algorithm = JWSAlgorithm(rawValue: example.alg) else { continue }
            let key = try privateJWK.privateKey()
            let jws = try CompactJWS.parse(example.jws)
            let signature = try key.sign(jws.signingInput, algorithm: algorithm.signatureAlgorithm)
            if algorithm == .ES256 {
                #expect(signature.count == 64)
                #expect(key.publicKey.verify(signature: signature, message: jws.signingInput, algorithm: .ecdsaP256SHA256))
            } else {
                #expect(signature == jws.signature, "\(example.id): deterministic signature must match the RFC")
            }
            // The private key's public half is the published JWK.
            let published = try #require(example.jwk)
            #expect(JWK(publicKey: key.publicKey, kid: "k", alg: algorithm).x == published.x)
            #expect(JWK(publicKey: key.publicKey, kid: "k", alg: algorithm).n == published.n)
            resigned += 1
        }
        #expect(resigned == 3)
    }
}

private struct CookbookExample: Decodable {
    struct Input: Decodable {
        let payload: String
        let key: JWK
        let alg: String
    }

    struct Signing: Decodable {
        let sig: String
    }

    struct Output: Decodable {
        let compact: String
    }

    let input: Input
    let signing: Signing
    let output: Output
}

private struct CookbookPrivateKey: Decodable {
    struct Input: Decodable {
        let key: PrivateJWK
    }

    let input: Input
}

@Suite("JOSE cookbook (RFC 7520 §4, RFC 8037) examples")
struct CookbookTests {
    @Test(arguments: [
        ("jws/4_1.rsa_v15_signature.json", true),
        ("curve25519/jws.json", true),
        ("jws/4_2.rsa-pss_signature.json", false),
        ("jws/4_3.ecdsa_signature.json", false),
        ("jws/4_4.hmac-sha2_integrity_protection.json", false),
    ])
    func example(path: String, supported: Bool) throws {
        let example = try VectorFiles.load(CookbookExample.self, "jose-cookbook/\(path)")
        let jws = try CompactJWS.parse(example.output.compact)
        #expect(jws.payload == Array(example.input.payload.utf8))
        #expect(jws.signature == (try Fixture.b64(example.signing.sig)))
        let keys = VerificationKeySet(JWKSet(keys: [example.input.key]))
        if supported {
            try jws.verify(with: keys, allowed: ours)
            // Both supported examples are deterministic: re-signing reproduces the published signature.
            let key = try VectorFiles.load(CookbookPrivateKey.self, "jose-cookbook/\(path)").input.key.privateKey()
            let algorithm = try #require(JWSAlgorithm(rawValue: example.input.alg))
            #expect(try key.sign(jws.signingInput, algorithm: algorithm.signatureAlgorithm) == jws.signature)
        } else {
            #expect(throws: JOSEError.unsupportedAlgorithm) { try jws.verify(with: keys, allowed: ours) }
            #expect(keys.isEmpty || example.input.key.kty == "RSA", "P-521 and oct keys are not usable here")
        }
    }
}
