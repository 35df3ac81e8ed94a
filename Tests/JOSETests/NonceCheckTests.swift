import Crypto
import JOSE
import Testing

@Suite("NonceCheck")
struct NonceCheckTests {
    let raw = "n-0S6_WzA2Mj"
    var hashed: String { Digest.sha256Hex(raw) }

    @Test func hashedNonce() throws {
        #expect(hashed.count == 64 && hashed == hashed.lowercased())
        try NonceCheck.check(tokenNonce: hashed, requestNonce: raw, mode: .sha256Hex, allowTokenNonceWithoutRequest: false)
        try NonceCheck.check(tokenNonce: hashed, requestNonce: raw, mode: .either, allowTokenNonceWithoutRequest: false)
        #expect(throws: JOSEError.nonceMismatch) {
            try NonceCheck.check(tokenNonce: raw, requestNonce: raw, mode: .sha256Hex, allowTokenNonceWithoutRequest: false)
        }
    }

    @Test func rawNonce() throws {
        try NonceCheck.check(tokenNonce: raw, requestNonce: raw, mode: .raw, allowTokenNonceWithoutRequest: false)
        try NonceCheck.check(tokenNonce: raw, requestNonce: raw, mode: .either, allowTokenNonceWithoutRequest: false)
        #expect(throws: JOSEError.nonceMismatch) {
            try NonceCheck.check(tokenNonce: hashed, requestNonce: raw, mode: .raw, allowTokenNonceWithoutRequest: false)
        }
        #expect(throws: JOSEError.nonceMismatch) {
            try NonceCheck.check(tokenNonce: raw + "x", requestNonce: raw, mode: .either, allowTokenNonceWithoutRequest: false)
        }
    }

    @Test func tokenWithoutNonce() {
        #expect(throws: JOSEError.nonceMismatch) {
            try NonceCheck.check(tokenNonce: nil, requestNonce: raw, mode: .either, allowTokenNonceWithoutRequest: true)
        }
    }

    @Test func requestWithoutNonce() throws {
        try NonceCheck.check(tokenNonce: nil, requestNonce: nil, mode: .sha256Hex, allowTokenNonceWithoutRequest: false)
        try NonceCheck.check(tokenNonce: hashed, requestNonce: nil, mode: .sha256Hex, allowTokenNonceWithoutRequest: true)
        #expect(throws: JOSEError.nonceMismatch) {
            try NonceCheck.check(tokenNonce: hashed, requestNonce: nil, mode: .sha256Hex, allowTokenNonceWithoutRequest: false)
        }
        #expect(throws: JOSEError.nonceMismatch) {
            try NonceCheck.check(tokenNonce: hashed, requestNonce: "", mode: .either, allowTokenNonceWithoutRequest: false)
        }
    }
}
