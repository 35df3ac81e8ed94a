@testable import Crypto
import Foundation
import Testing
import TestVectors

/// NATS nkeys (the services' NATS identities): nats.c's own vector (Tests/Vectors/nkeys).
@Suite("NATS nkeys")
struct NKeyTests {
    struct Vector: Decodable {
        let seed: String
        let publicKey: String
        let message: String
        let signature: [UInt8]
        let badChecksumSeed: String
    }

    @Test("nats.c's seed gives its public key, which verifies the signature nats.c makes with it")
    func natsVector() throws {
        let vector = try VectorFiles.load(Vector.self, "nkeys/nkeys-vector.json")
        let key = try NKey(seed: vector.seed + "\n")
        #expect(key.publicKey == vector.publicKey)
        #expect(key.seed == vector.seed)
        let raw = try #require(Base32.decode(key.publicKey))
        let publicKey = try PublicKey.ed25519(Array(raw[1..<33]))
        #expect(publicKey.verify(signature: vector.signature, message: Array(vector.message.utf8), algorithm: .ed25519))
        #expect(throws: CryptoError.self) { try NKey(seed: vector.badChecksumSeed) }
        #expect(throws: CryptoError.self) { try NKey(seed: vector.publicKey) }
    }

    @Test("a generated key reads back from its seed")
    func generated() throws {
        let key = try NKey.generateUser()
        #expect(key.seed.count == 58 && key.seed.hasPrefix("SU"))
        #expect(key.publicKey.count == 56 && key.publicKey.hasPrefix("U"))
        #expect(try NKey(seed: key.seed) == key)
    }
}
