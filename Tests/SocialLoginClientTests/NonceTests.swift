import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SocialLoginClient
import Testing

/// The nonce helper: random raw values and their SHA-256 hex, which on Linux comes from the
/// library's own SHA-256 (checked against FIPS 180 vectors and against OpenSSL).
@Suite("Nonce and SHA-256")
struct NonceTests {
    @Test("SHA-256 matches the FIPS 180 examples", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func vectors(_ input: String, _ digest: String) {
        #expect(Nonce.sha256Hex(input) == digest)
    }

    @Test("SHA-256 agrees with OpenSSL for every length around the block and padding edges")
    func agreesWithOpenSSL() {
        for length in 0...200 {
            let input = String((0..<length).map { i in Character(UnicodeScalar(UInt8(33 + (i * 7 + length) % 94))) }) + "é"
            #expect(Nonce.sha256Hex(input) == Digest.sha256Hex(input), "length \(length)")
        }
    }

    @Test("random nonces are 32 URL-safe characters by default, distinct, with their hash")
    func random() {
        let allowed = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-._")
        let nonces = (0..<100).map { _ in Nonce.random() }
        #expect(nonces.allSatisfy { $0.raw.count == 32 && Set($0.raw).isSubset(of: allowed) })
        #expect(Set(nonces.map(\.raw)).count == 100)
        #expect(nonces.allSatisfy { $0.sha256 == Digest.sha256Hex($0.raw) })
        #expect(Nonce.random(length: 64).raw.count == 64)
    }
}
