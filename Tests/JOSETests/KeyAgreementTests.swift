import Crypto
import Testing

/// X25519 key agreement and HKDF-SHA-256 (the sealed replies' primitives), from OpenSSL.
@Suite("Key agreement")
struct KeyAgreementTests {
    /// RFC 5869 appendix A.1, test case 1.
    @Test("HKDF-SHA-256 gives RFC 5869's test case 1")
    func hkdfRFC5869() throws {
        func hex(_ text: String) -> [UInt8] {
            stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
        }
        let okm = try HKDF.sha256(key: hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), salt: hex("000102030405060708090a0b0c"),
                                  info: hex("f0f1f2f3f4f5f6f7f8f9"), length: 42)
        #expect(okm == hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    }

    @Test("two key pairs agree on one key; a third pair, another salt or info gets another")
    func agreement() throws {
        let alice = try X25519KeyPair.generate(), bob = try X25519KeyPair.generate(), eve = try X25519KeyPair.generate()
        #expect(alice.publicKey.count == 32 && alice.publicKey != bob.publicKey)
        let info = Array("test".utf8)
        let ab = try alice.agreedKey(with: bob.publicKey, salt: [1], info: info)
        #expect(ab.count == 32)
        #expect(try bob.agreedKey(with: alice.publicKey, salt: [1], info: info) == ab)
        #expect(try eve.agreedKey(with: bob.publicKey, salt: [1], info: info) != ab)
        #expect(try alice.agreedKey(with: bob.publicKey, salt: [2], info: info) != ab)
        #expect(try alice.agreedKey(with: bob.publicKey, salt: [1], info: Array("other".utf8)) != ab)
    }

    @Test("a peer key that is not 32 bytes, or a small-order point (an all-zero secret), is refused")
    func badPeers() throws {
        let alice = try X25519KeyPair.generate()
        #expect(throws: CryptoError.self) { try alice.agreedKey(with: [UInt8](repeating: 9, count: 31), salt: [], info: []) }
        // The point of order 1 (u = 0) and of order 8 (u = 1): every secret with them is zero.
        for small in [[UInt8](repeating: 0, count: 32), [1] + [UInt8](repeating: 0, count: 31)] {
            #expect(throws: CryptoError.self) { try alice.agreedKey(with: small, salt: [], info: []) }
        }
    }
}
