import Crypto
import Foundation
import JOSE
import Testing
import TestVectors

/// Wycheproof file layout for the signature-verification schemas used here.
private struct WycheproofFile<Group: Decodable>: Decodable {
    let numberOfTests: Int
    let testGroups: [Group]
}

private struct SignatureCase: Decodable {
    let tcId: Int
    let msg: String
    let sig: String
    let result: String
    let flags: [String]
}

private struct RSAGroup: Decodable {
    let keyJwk: JWK
    let tests: [SignatureCase]
}

private struct JWKGroup: Decodable {
    struct RawKey: Decodable {
        let uncompressed: String?
        let pk: String?
    }

    let publicKeyJwk: JWK?
    let publicKey: RawKey
    let tests: [SignatureCase]

    /// The P-256 coordinates from the JWK, or from the uncompressed point for the few groups without a JWK.
    func p256Coordinates() throws -> (x: [UInt8], y: [UInt8]) {
        if let jwk = publicKeyJwk { return (try Fixture.b64(jwk.x), try Fixture.b64(jwk.y)) }
        let point = try Fixture.hex(try #require(publicKey.uncompressed))
        try #require(point.count == 65 && point[0] == 4)
        return (Array(point[1..<33]), Array(point[33...]))
    }
}

/// Runs every case of a group: `valid` must verify, `invalid` must not, `acceptable` may go either way.
private func run(_ cases: [SignatureCase], key: PublicKey?, algorithm: SignatureAlgorithm, file: String) throws -> Int {
    var ran = 0
    for test in cases {
        let message = try Fixture.hex(test.msg)
        let signature = try Fixture.hex(test.sig)
        let verified = key?.verify(signature: signature, message: message, algorithm: algorithm) ?? false
        switch test.result {
        case "valid":
            #expect(verified, "\(file) tcId \(test.tcId) (\(test.flags)) should verify")
        case "invalid":
            #expect(!verified, "\(file) tcId \(test.tcId) (\(test.flags)) should not verify")
        case "acceptable":
            break
        default:
            Issue.record("\(file) tcId \(test.tcId): unknown result \(test.result)")
        }
        ran += 1
    }
    return ran
}

@Suite("Wycheproof RSASSA-PKCS1-v1_5 SHA-256 through PublicKey.verify")
struct WycheproofRSATests {
    @Test(arguments: [
        ("rsa_signature_2048_sha256_test.json", 259),
        ("rsa_signature_3072_sha256_test.json", 259),
        ("rsa_signature_4096_sha256_test.json", 258),
    ])
    func everyCase(file: String, expected: Int) throws {
        let vectors = try VectorFiles.load(WycheproofFile<RSAGroup>.self, "wycheproof/\(file)")
        var ran = 0
        for group in vectors.testGroups {
            let key = try PublicKey.rsa(modulus: Fixture.b64(group.keyJwk.n), exponent: Fixture.b64(group.keyJwk.e))
            ran += try run(group.tests, key: key, algorithm: .rsaPKCS1SHA256, file: file)
        }
        #expect(ran == expected)
        #expect(ran == vectors.numberOfTests)
    }

    @Test("An RSA key refuses the ECDSA and Ed25519 algorithms")
    func refusesOtherAlgorithms() throws {
        let vectors = try VectorFiles.load(WycheproofFile<RSAGroup>.self, "wycheproof/rsa_signature_2048_sha256_test.json")
        let group = try #require(vectors.testGroups.first)
        let key = try PublicKey.rsa(modulus: Fixture.b64(group.keyJwk.n), exponent: Fixture.b64(group.keyJwk.e))
        let valid = try #require(group.tests.first { $0.result == "valid" })
        let message = try Fixture.hex(valid.msg), signature = try Fixture.hex(valid.sig)
        #expect(key.verify(signature: signature, message: message, algorithm: .rsaPKCS1SHA256))
        #expect(!key.verify(signature: signature, message: message, algorithm: .ecdsaP256SHA256))
        #expect(!key.verify(signature: signature, message: message, algorithm: .ed25519))
        #expect(key.kind == .rsa(bits: 2048))
    }
}

@Suite("Wycheproof ECDSA P-256 SHA-256 (P1363 R‖S) through PublicKey.verify")
struct WycheproofECDSATests {
    @Test func everyCase() throws {
        let file = "ecdsa_secp256r1_sha256_p1363_test.json"
        let vectors = try VectorFiles.load(WycheproofFile<JWKGroup>.self, "wycheproof/\(file)")
        var ran = 0
        for group in vectors.testGroups {
            let (x, y) = try group.p256Coordinates()
            let key = try PublicKey.p256(x: x, y: y)
            #expect(key.kind == .p256)
            ran += try run(group.tests, key: key, algorithm: .ecdsaP256SHA256, file: file)
        }
        #expect(ran == 262)
        #expect(ran == vectors.numberOfTests)
    }
}

@Suite("Wycheproof Ed25519 through PublicKey.verify")
struct WycheproofEd25519Tests {
    @Test func everyCase() throws {
        let file = "ed25519_test.json"
        let vectors = try VectorFiles.load(WycheproofFile<JWKGroup>.self, "wycheproof/\(file)")
        var ran = 0
        for group in vectors.testGroups {
            let key = try PublicKey.ed25519(group.publicKeyJwk.map { try Fixture.b64($0.x) } ?? Fixture.hex(try #require(group.publicKey.pk)))
            #expect(key.kind == .ed25519)
            ran += try run(group.tests, key: key, algorithm: .ed25519, file: file)
        }
        #expect(ran == 151)
        #expect(ran == vectors.numberOfTests)
    }
}
