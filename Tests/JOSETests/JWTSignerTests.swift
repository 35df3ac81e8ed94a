import Crypto
import Foundation
import JOSE
import Testing

private struct AccessClaims: Codable {
    let iss: String, sub: String, aud: String, sid: String, iat: Int64, exp: Int64, jti: String
}

@Suite("JWTSigner round trips through CompactJWS.verify")
struct JWTSignerTests {
    static let rsaKey = Result { try PrivateKey.generateRSA(bits: 2048) }

    private func signers() throws -> [JWTSigner] {
        [
            JWTSigner(key: try PrivateKey.generateP256(), kid: "es-1", algorithm: .ES256),
            JWTSigner(key: try PrivateKey.generateEd25519(), kid: "ed-1", algorithm: .EdDSA),
            JWTSigner(key: try Self.rsaKey.get(), kid: "rs-1", algorithm: .RS256),
        ]
    }

    @Test func roundTrip() throws {
        let claims = AccessClaims(iss: "https://login.example", sub: "42", aud: "api", sid: "s-1",
                                  iat: 1_700_000_000, exp: 1_700_000_900, jti: "j-1")
        let signers = try signers()
        let keys = VerificationKeySet(JWKSet(keys: signers.map(\.jwk)))
        #expect(keys.count == 3 && Set(keys.kids) == ["es-1", "ed-1", "rs-1"])
        for signer in signers {
            let token = try signer.sign(claims)
            let jws = try CompactJWS.parse(token)
            #expect(jws.header.alg == signer.algorithm.rawValue && jws.header.kid == signer.kid && jws.header.typ == "JWT")
            let key = try jws.verify(with: keys, allowed: Set(JWSAlgorithm.allCases))
            #expect(key.kid == signer.kid)
            let decoded = try JWTClaims.decode(jws.payload)
            #expect(decoded.sub == "42" && decoded.aud == ["api"] && decoded.exp == 1_700_000_900 && decoded.raw["sid"] == .string("s-1"))
            try ClaimRules(issuers: ["https://login.example"], audiences: ["api"])
                .check(decoded, now: Date(timeIntervalSince1970: 1_700_000_100))
            // Only the matching key verifies: the same token with another signer's kid is refused.
            for other in signers where other.kid != signer.kid {
                let forged = try CompactJWS.parse(try other.sign(claimsJSON: jws.payload).split(separator: ".")[0]
                    + "." + token.split(separator: ".")[1] + "." + token.split(separator: ".")[2])
                #expect(throws: JOSEError.self) { try forged.verify(with: keys, allowed: Set(JWSAlgorithm.allCases)) }
            }
        }
    }

    @Test func extraHeaderMembers() throws {
        let signer = JWTSigner(key: try PrivateKey.generateP256(), kid: "k\"1", algorithm: .ES256)
        let token = try signer.sign(header: ["typ": "at+jwt", "x-env": "dev"], claimsJSON: Array(#"{"sub":"1"}"#.utf8))
        let jws = try CompactJWS.parse(token)
        #expect(jws.header.typ == "at+jwt" && jws.header.kid == "k\"1")
        try jws.verify(with: VerificationKeySet(JWKSet(keys: [signer.jwk])), allowed: [.ES256])
        #expect(throws: JOSEError.invalidArgument) { try signer.sign(header: ["alg": "none"], claimsJSON: []) }
    }

    @Test("The signing input is byte for byte what it was with Foundation's sorted-key encoder")
    func signingInputBytes() throws {
        let signer = JWTSigner(key: try PrivateKey.generateP256(), kid: "k\"1/\u{1}é", algorithm: .ES256)
        let claims = AccessClaims(iss: "https://login.example/é", sub: "42", aud: "api", sid: "s-1",
                                  iat: 1_700_000_000, exp: 1_700_000_900, jti: "j\"\\1\n")
        let parts = try signer.sign(header: ["x-env": "dev", "cty": "a/b"], claimsJSON: []).split(separator: ".")
        #expect(String(decoding: try #require(Base64URL.decode(String(parts[0]))), as: UTF8.self)
            == #"{"alg":"ES256","kid":"k\"1/\u0001é","typ":"JWT","cty":"a/b","x-env":"dev"}"#)
        let payload = try #require(Base64URL.decode(String(try signer.sign(claims).split(separator: ".")[1])))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(payload == Array(try encoder.encode(claims)))
        #expect(String(decoding: payload, as: UTF8.self) == #"{"aud":"api","exp":1700000900,"iat":1700000000,"#
            + #""iss":"https://login.example/é","jti":"j\"\\1\n","sid":"s-1","sub":"42"}"#)
    }

    @Test("A signer whose algorithm does not fit its key refuses to sign")
    func mismatchedAlgorithm() throws {
        let signer = JWTSigner(key: try PrivateKey.generateEd25519(), kid: "x", algorithm: .ES256)
        #expect(throws: CryptoError.algorithmKeyMismatch) { try signer.sign(claimsJSON: Array("{}".utf8)) }
    }
}

@Suite("CompactJWS parsing and verification rules")
struct CompactJWSRulesTests {
    let signer: JWTSigner
    let keys: VerificationKeySet

    init() throws {
        signer = JWTSigner(key: try PrivateKey.generateP256(), kid: "k1", algorithm: .ES256)
        keys = VerificationKeySet(JWKSet(keys: [signer.jwk]))
    }

    /// A token with a hand-written header, signed by the test key.
    private func token(header: String, payload: String = #"{"sub":"1"}"#) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let signature = try signer.key.sign(Array(input.utf8), algorithm: .ecdsaP256SHA256)
        return input + "." + Base64URL.encode(signature)
    }

    @Test func structure() throws {
        #expect(throws: JOSEError.malformed) { try CompactJWS.parse("a.b") }
        #expect(throws: JOSEError.malformed) { try CompactJWS.parse("a.b.c.d") }
        #expect(throws: JOSEError.malformed) { try CompactJWS.parse(".e30.") }
        #expect(throws: JOSEError.malformed) { try CompactJWS.parse("e30=.e30.") }
        #expect(throws: JOSEError.malformed) { try CompactJWS.parse(Base64URL.encode(Array("[]".utf8)) + ".e30.") }
        #expect(throws: JOSEError.malformed) { try CompactJWS.parse(Base64URL.encode(Array(#"{"alg":1}"#.utf8)) + ".e30.") }
        #expect(throws: JOSEError.tooLarge) { try CompactJWS.parse(String(repeating: "a", count: 8193)) }
        #expect(throws: JOSEError.tooLarge) { try CompactJWS.parse(try token(header: #"{"alg":"ES256"}"#), maxLength: 20) }
    }

    @Test func criticalHeaderRefused() throws {
        let jws = try CompactJWS.parse(try token(header: #"{"alg":"ES256","kid":"k1","crit":["exp"],"exp":1}"#))
        #expect(throws: JOSEError.unsupportedCriticalHeader) { try jws.verify(with: keys, allowed: [.ES256]) }
    }

    @Test func kidSelection() throws {
        try CompactJWS.parse(try token(header: #"{"alg":"ES256","kid":"k1"}"#)).verify(with: keys, allowed: [.ES256])
        // No kid: accepted because the set holds exactly one ES256 key.
        try CompactJWS.parse(try token(header: #"{"alg":"ES256"}"#)).verify(with: keys, allowed: [.ES256])
        #expect(throws: JOSEError.unknownKey) {
            try CompactJWS.parse(try token(header: #"{"alg":"ES256","kid":"k2"}"#)).verify(with: keys, allowed: [.ES256])
        }
        let second = JWTSigner(key: try PrivateKey.generateP256(), kid: "k2", algorithm: .ES256)
        let two = VerificationKeySet(JWKSet(keys: [signer.jwk, second.jwk]))
        #expect(throws: JOSEError.unknownKey) {
            try CompactJWS.parse(try token(header: #"{"alg":"ES256"}"#)).verify(with: two, allowed: [.ES256])
        }
        // A duplicated kid is ambiguous: both keys are dropped.
        var clash = second.jwk
        clash.kid = "k1"
        let ambiguous = VerificationKeySet(JWKSet(keys: [signer.jwk, clash]))
        #expect(ambiguous.isEmpty && ambiguous.skipped.count == 2)
    }

    @Test("Embedded jwk / jku / x5u are ignored: an attacker's own key never verifies")
    func embeddedKeysIgnored() throws {
        let attacker = JWTSigner(key: try PrivateKey.generateP256(), kid: "k1", algorithm: .ES256)
        let jwk = String(decoding: try JSONEncoder().encode(attacker.jwk), as: UTF8.self)
        let header = #"{"alg":"ES256","kid":"k1","jku":"https://evil.example/jwks","jwk":"# + jwk + "}"
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array("{}".utf8))
        let forged = input + "." + Base64URL.encode(try attacker.key.sign(Array(input.utf8), algorithm: .ecdsaP256SHA256))
        let jws = try CompactJWS.parse(forged)
        #expect(jws.header.carriesKeyReference)
        #expect(throws: JOSEError.badSignature) { try jws.verify(with: keys, allowed: [.ES256]) }
    }

    @Test("The key's own alg must match the token's alg")
    func keyAlgorithmMustMatch() throws {
        var declared = signer.jwk
        declared.alg = "RS256"
        #expect(VerificationKeySet(JWKSet(keys: [declared])).isEmpty, "an RS256 alg on a P-256 key is refused")
        let ed = JWTSigner(key: try PrivateKey.generateEd25519(), kid: "k1", algorithm: .EdDSA)
        let edKeys = VerificationKeySet(JWKSet(keys: [ed.jwk]))
        #expect(throws: JOSEError.algorithmKeyMismatch) {
            try CompactJWS.parse(try token(header: #"{"alg":"ES256","kid":"k1"}"#)).verify(with: edKeys, allowed: [.ES256, .EdDSA])
        }
    }

    @Test(arguments: ["none", "HS256", "PS256", "ES512", "RS384", "es256", "NONE", ""])
    func foreignAlgorithms(_ alg: String) throws {
        let jws = try CompactJWS.parse(try token(header: #"{"alg":"\#(alg)","kid":"k1"}"#))
        #expect(throws: JOSEError.unsupportedAlgorithm) { try jws.verify(with: keys, allowed: Set(JWSAlgorithm.allCases)) }
    }
}
