import JOSE
import Testing

@Suite("JWK thumbprints (RFC 7638)")
struct JWKThumbprintTests {
    @Test("the RFC 7638 section 3.1 example")
    func rfcExample() throws {
        let jwk = JWK(kty: "RSA", kid: "2011-04-29", alg: "RS256", use: nil, keyOps: nil, crv: nil,
                      n: "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
                      e: "AQAB", x: nil, y: nil)
        #expect(try jwk.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("EC and OKP keys hash only their required members, so kid and alg do not change it")
    func ignoresOptionalMembers() throws {
        let a = JWK(kty: "EC", kid: "one", alg: "ES256", use: "sig", keyOps: nil, crv: "P-256", n: nil, e: nil, x: "AAAA", y: "BBBB")
        let b = JWK(kty: "EC", kid: "two", alg: nil, use: nil, keyOps: nil, crv: "P-256", n: nil, e: nil, x: "AAAA", y: "BBBB")
        #expect(try a.thumbprint() == b.thumbprint())
        let c = JWK(kty: "EC", kid: "one", alg: "ES256", use: "sig", keyOps: nil, crv: "P-256", n: nil, e: nil, x: "AAAA", y: "CCCC")
        #expect(try a.thumbprint() != c.thumbprint())
        #expect(throws: JOSEError.self) {
            try JWK(kty: "oct", kid: nil, alg: nil, use: nil, keyOps: nil, crv: nil, n: nil, e: nil, x: nil, y: nil).thumbprint()
        }
    }
}
