import Crypto
import Foundation
import JOSE
import Testing

@Suite("JWK conversion and validation")
struct JWKTests {
    private static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"]

    @Test("A JWK made from a public key never contains private members")
    func noPrivateFields() throws {
        let keys: [(PrivateKey, JWSAlgorithm)] = [
            (try PrivateKey.generateP256(), .ES256), (try PrivateKey.generateEd25519(), .EdDSA),
            (try PrivateKey.generateRSA(bits: 2048), .RS256),
        ]
        for (key, alg) in keys {
            let jwk = JWK(publicKey: key.publicKey, kid: "kid", alg: alg)
            let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(jwk)) as? [String: Any])
            for member in Self.privateMembers { #expect(object[member] == nil, "\(alg): \(member) leaked") }
            #expect(object["kid"] as? String == "kid" && object["alg"] as? String == alg.rawValue && object["use"] as? String == "sig")
            let back = try jwk.publicKey()
            #expect(back.kind == key.publicKey.kind)
            let message = Array("m".utf8)
            #expect(back.verify(signature: try key.sign(message, algorithm: alg.signatureAlgorithm), message: message,
                                algorithm: alg.signatureAlgorithm))
        }
    }

    @Test("Decoding a private JWK keeps only the public members")
    func privateMembersDropped() throws {
        let json = #"{"kty":"EC","crv":"P-256","kid":"a","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}"#
        let jwk = try JSONDecoder().decode(JWK.self, from: Data(json.utf8))
        let encoded = String(decoding: try JSONEncoder().encode(jwk), as: UTF8.self)
        #expect(!encoded.contains("jpsQ") && !encoded.contains("\"d\""))
        #expect(try jwk.publicKey().kind == .p256)
    }

    @Test func refusedKeys() throws {
        #expect(throws: JOSEError.unsupportedKey) { try JWK(kty: "oct").publicKey() }
        #expect(throws: JOSEError.unsupportedKey) { try JWK(kty: "EC", crv: "P-384", x: "AA", y: "AA").publicKey() }
        #expect(throws: JOSEError.unsupportedKey) { try JWK(kty: "OKP", crv: "X25519", x: "AA").publicKey() }
        // A point not on the curve: a valid x with y changed.
        #expect(throws: JOSEError.unsupportedKey) {
            try JWK(kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                    y: "y_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0").publicKey()
        }
        let rsa = try #require(try PrivateKey.generateRSA(bits: 2048).publicKey.rsaComponents)
        let n = Base64URL.encode(rsa.modulus)
        #expect(try JWK(kty: "RSA", n: n, e: "AQAB").publicKey().kind == .rsa(bits: 2048))
        #expect(try JWK(kty: "RSA", n: n, e: "Aw").publicKey().kind == .rsa(bits: 2048))
        #expect(throws: JOSEError.unsupportedKey) { try JWK(kty: "RSA", n: n, e: "AQ").publicKey() }
        #expect(throws: JOSEError.unsupportedKey) { try JWK(kty: "RSA", n: n, e: "AQAA").publicKey() }
        #expect(throws: JOSEError.unsupportedKey) { try JWK(kty: "RSA", n: Base64URL.encode(rsa.modulus.dropFirst(2)), e: "AQAB").publicKey() }
        #expect(throws: JOSEError.malformed) { try JWK(kty: "RSA", n: n + "=", e: "AQAB").publicKey() }
    }

    @Test("A key set skips unusable entries instead of failing")
    func lenientKeySet() throws {
        let json = #"{"keys":[{"kty":"oct","k":"c2VjcmV0"},42,{"kty":"OKP","crv":"Ed25519","kid":"ed","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},{"kty":"OKP","crv":"Ed25519","kid":"enc","use":"enc","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#
        let set = try JSONDecoder().decode(JWKSet.self, from: Data(json.utf8))
        #expect(set.keys.count == 3)
        let keys = VerificationKeySet(set)
        #expect(keys.kids == ["ed"])
        #expect(keys.key(for: "ed")?.algorithm == .EdDSA)
        #expect(keys.key(for: nil)?.kid == "ed")
        #expect(keys.skipped.count == 2)
    }
}
