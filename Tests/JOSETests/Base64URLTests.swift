import JOSE
import Testing

@Suite("Base64URL: round trips and strict decoding")
struct Base64URLTests {
    @Test func roundTripsEveryLength() {
        for length in 0...70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Base64URL.decode(encoded) == bytes)
        }
    }

    @Test func knownValues() {
        #expect(Base64URL.encode(Array("Example of Ed25519 signing".utf8)) == "RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc")
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
        #expect(Base64URL.decode("") == [])
    }

    @Test(arguments: [
        "Zm9v=",      // padding
        "Zm9vYg==",   // padding
        "Zm9v Yg",    // whitespace
        "Zm9v\nYg",   // newline
        "Zm9v+g",     // standard alphabet
        "Zm9v/g",     // standard alphabet
        "Zm9vY",      // impossible length (len % 4 == 1)
        "Zh",         // non-canonical: trailing bits set in the last character
        "Zm9",        // canonical is "Zm8"
        "Zm9v.",      // dot
        "Zm9vé",      // non-ASCII
    ])
    func rejects(_ input: String) {
        #expect(Base64URL.decode(input) == nil)
    }
}
