import Crypto
import Testing

@Suite("AESGCM seal/open and tamper detection")
struct AESGCMTests {
    let key = SecureRandom.bytes(32)
    let secret = Array("apple-refresh-token-value".utf8)

    @Test func roundTrip() throws {
        let sealed = try AESGCM.seal(secret, key: key)
        #expect(sealed.count == 12 + secret.count + 16)
        #expect(try AESGCM.open(sealed, key: key) == secret)
        #expect(try AESGCM.open(try AESGCM.seal([], key: key), key: key) == [])
        #expect(try AESGCM.seal(secret, key: key) != sealed, "a fresh nonce each time")
        let bound = try AESGCM.seal(secret, key: key, associatedData: Array("member-7".utf8))
        #expect(try AESGCM.open(bound, key: key, associatedData: Array("member-7".utf8)) == secret)
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(bound, key: key, associatedData: Array("member-8".utf8)) }
    }

    @Test func tamperingIsDetected() throws {
        let sealed = try AESGCM.seal(secret, key: key)
        for index in [0, 11, 12, sealed.count - 17, sealed.count - 1] {
            var tampered = sealed
            tampered[index] ^= 0x80
            #expect(throws: CryptoError.authenticationFailed, "byte \(index)") { try AESGCM.open(tampered, key: key) }
        }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(Array(sealed.dropLast()), key: key) }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(Array(sealed.prefix(27)), key: key) }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(sealed, key: SecureRandom.bytes(32)) }
        #expect(throws: CryptoError.invalidKeyLength) { try AESGCM.seal(secret, key: SecureRandom.bytes(16)) }
    }
}

@Suite("Digest, HMAC, random bytes and constant-time comparison")
struct PrimitiveTests {
    @Test func sha256KnownAnswers() {
        #expect(Digest.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Digest.sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Digest.sha256(Array("abc".utf8)) == Digest.sha256("abc"))
        #expect(Digest.sha256("abc".utf8.lazy.map { $0 }) == Digest.sha256("abc"))
    }

    @Test("HMAC-SHA-256, RFC 4231 test cases 1, 2 and 6 (a key longer than a block), and the empty key")
    func hmacKnownAnswer() {
        let mac = HMAC.sha256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Hex.encode(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let one = HMAC.sha256(key: Array(repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
        #expect(Hex.encode(one) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        let six = HMAC.sha256(key: Array(repeating: 0xaa, count: 131),
                              message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(Hex.encode(six) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(Hex.encode(HMAC.sha256(key: [], message: [])) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func randomAndConstantTime() {
        let a = SecureRandom.bytes(32), b = SecureRandom.bytes(32)
        #expect(a.count == 32 && a != b)
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(constantTimeEquals(a, a))
        #expect(!constantTimeEquals(a, b))
        #expect(!constantTimeEquals(a, Array(a.dropLast())))
        #expect(constantTimeEquals([], []))
    }
}

@Suite("Key generation, PEM and components")
struct KeyTests {
    @Test func pemRoundTrips() throws {
        for key in [try PrivateKey.generateP256(), try PrivateKey.generateEd25519(), try PrivateKey.generateRSA(bits: 2048)] {
            let pem = try key.pemRepresentation
            #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
            let again = try PrivateKey(pem: pem)
            #expect(again.kind == key.kind)
            let publicPEM = try key.publicKey.pemRepresentation
            #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
            let publicKey = try PublicKey.pem(publicPEM)
            let algorithm: SignatureAlgorithm = switch key.kind {
            case .rsa: .rsaPKCS1SHA256
            case .p256: .ecdsaP256SHA256
            case .ed25519: .ed25519
            }
            let message = Array("hello".utf8)
            let signature = try again.sign(message, algorithm: algorithm)
            #expect(publicKey.verify(signature: signature, message: message, algorithm: algorithm))
            #expect(!publicKey.verify(signature: signature, message: message + [0], algorithm: algorithm))
        }
        #expect(throws: CryptoError.invalidPEM) { try PrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        #expect(throws: CryptoError.invalidPEM) { try PublicKey.pem("not a pem") }
    }

    @Test("SEC1 EC and PKCS#1 RSA private keys are read (the other PEM forms OpenSSL tools write)")
    func legacyPEMForms() throws {
        let sec1 = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIJ6ngXWF1eiZ3rAs8lF2/w48fu8uVBPrWEL/8rWXd6rpoAoGCCqGSM49
        AwEHoUQDQgAEb8vJ+fQRWLeDBlfEPpJCA3J4zCLgFBebz5JS4z2YFifNq4jvxKFy
        jw2kq0e4YZ4MEGXzAiHXbin1G68WQFgVBw==
        -----END EC PRIVATE KEY-----
        """
        let ec = try PrivateKey(pem: sec1)
        let (x, y) = try #require(ec.publicKey.p256Coordinates)
        #expect(Hex.encode(x + y) == "6fcbc9f9f41158b7830657c43e9242037278cc22e014179bcf9252e33d981627cdab88efc4a1728f0da4ab47b8619e0c1065f30221d76e29f51baf1640581507")
        let pkcs1 = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEpAIBAAKCAQEA27HtTK7girxiy+fPu2f0cO+YmzYN9/DnPjtJlDjc3XYnGhfz
        w0pxiufeMWU5wkk183l3aMu7IKcli0vc8XP8xt399f5xO0Ue6iqVT00Ck4MigsYQ
        ercKLs5nLjURJ1hXTfj4SplIi9SreyFj79+qkFOPADkY7wl2MVH78+GTfPnild4Y
        zmCPz4k95VsHJlkrmCWNcHa253+zIoq1I/PWQDxtZjcHthU00UEjPKnq5UkRQjCW
        NMnbxmeDjmTtcpoJUpeYPx73wNmEsgXc0rLq7igKCByQpo599zOyqATrgaNlYup6
        YqQ4H77Lr57cVrlQDoS7daEyiDA0/FkuD1zoEQIDAQABAoIBAAbE3GoisD3uEIA2
        V/7u9MffBf1wRK1pQYK4GmwD9YAoUguahdL0UfvE6aJte0JadZxXF4AF2PHoXH6G
        e5v/5h+tetPvv0bjehCed8O9/HCVl4RefGb/iUOIbgLtNSZYcTYwj9vijarrRk5Q
        qM7c/hkczfjkiXlh+f+KhmANCPmOfdYdz5y6ECTYCinIs7dn2Hm4FMqChZIr2Mib
        1gqkkGWfmefvqJgE7eGrLNES3YcQfAwn78MJQ83bPpz923Am4kRx1xKGHfyG9OeH
        wxNJ/RJUffkb2dvi2ayDUFiG2/z9omV6Tcmhi/N15WgPpfLaCOmGz1PEM6/kFh91
        VNeG/+0CgYEA9k9sOBaaFelijL6NO+BbQIWl87SjaWVi2B4jWJjSW95v6PYM0i0O
        93spGfvgS7utAxTjD5rfhMAOXg39t05EMEVxNaw16MPr8oIOpVUStq4zU5PwFHB9
        3excpEj82PfxLRzO1bADmQB9BWXNZAfJaV0X4k6vz6lMp0BSpiUKcB0CgYEA5FZ2
        utZvC9WVRlSOh+hzxmy6C3GOY0IZcC3gk1jBDphw8moysxaKEkg8bH111tPnqlHx
        t0nBaQs5G1RJnglqzvZhHRWIa1xGClAVUEUKz9Th4RIZqZmXmzXaBYxso3dUSlNk
        +8WiOkSUzOsDAgXZxryd9lVfT2XwIoE8uQ90/YUCgYEAxKHtE+2/PuTdPtzUZUub
        ravEKwU3O2mr+jo9H3qI3Lx7/K+I1rUP8LQKwOqaSfteiEpBZnDOJe0oyx9CP/ck
        aqDVWvLK6rKWBziatpRu5xW0dfFxRO/1G5iY8LIv4Io3qDsKR/9HL/r607dMu6GX
        whyGd603n4FZZ1/rWyXQ6mUCgYEA38GTK9hCjZhJZdgqrCgwe/vD/L7Ux5PYlcN/
        VSUeWo0r8YH8GN83gl7jR3VSaqjRVmhitDhEnglvdsaMNaAI2LM7y2J0grCzuhts
        J3Lg+3UjvIkeOMLYfDKzaciIFVA0e3lpdgffx7W5E24hTnQpSsU/Dkvu0EGWpll7
        BeaNwHkCgYB5uxTZ1ZCvMSnIHrflXUPX+li0xpW3UG07J872ZLad5MRVjJ+3HNhJ
        HDW7DJesjQRYqibVw3bmQLg7NKwcm/a7JNZZgjzkFUQfJupEQ/NQ8oDHvbtTcHTv
        k2CdUVuCRT3YdW5X3crzuz/7cMsVoTemwy9w71uCtGWGaIJBjWwbYQ==
        -----END RSA PRIVATE KEY-----
        """
        let rsa = try PrivateKey(pem: pkcs1)
        #expect(rsa.kind == .rsa(bits: 2048))
        #expect(Hex.encode(try #require(rsa.publicKey.rsaComponents).modulus) == "dbb1ed4caee08abc62cbe7cfbb67f470ef989b360df7f0e73e3b499438dcdd76271a17f3c34a718ae7de316539c24935f3797768cbbb20a7258b4bdcf173fcc6ddfdf5fe713b451eea2a954f4d0293832282c6107ab70a2ece672e35112758574df8f84a99488bd4ab7b2163efdfaa90538f003918ef09763151fbf3e1937cf9e295de18ce608fcf893de55b0726592b98258d7076b6e77fb3228ab523f3d6403c6d663707b61534d141233ca9eae5491142309634c9dbc667838e64ed729a095297983f1ef7c0d984b205dcd2b2eaee280a081c90a68e7df733b2a804eb81a36562ea7a62a4381fbecbaf9edc56b9500e84bb75a132883034fc592e0f5ce811")
        #expect(try PrivateKey(pem: try rsa.pemRepresentation).publicKey.rsaComponents?.modulus == rsa.publicKey.rsaComponents?.modulus)
    }

    @Test func components() throws {
        let p256 = try PrivateKey.generateP256().publicKey
        let (x, y) = try #require(p256.p256Coordinates)
        #expect(x.count == 32 && y.count == 32)
        #expect(p256.rsaComponents == nil && p256.ed25519Raw == nil)
        #expect(try PublicKey.p256(x: x, y: y).p256Coordinates?.y == y)
        var offCurve = y
        offCurve[31] ^= 1
        #expect(throws: CryptoError.invalidKey) { try PublicKey.p256(x: x, y: offCurve) }
        #expect(throws: CryptoError.invalidKey) { try PublicKey.p256(x: Array(x.dropFirst()), y: y) }
        let ed = try PrivateKey.generateEd25519().publicKey
        #expect(try #require(ed.ed25519Raw).count == 32)
        #expect(throws: CryptoError.invalidKey) { try PublicKey.ed25519([1, 2, 3]) }
        #expect(throws: CryptoError.unsupportedKey) { try PrivateKey.generateRSA(bits: 1024) }
    }

    @Test("ES256 signatures are raw 64 bytes; DER and other lengths are refused")
    func ecdsaSignatureForm() throws {
        let key = try PrivateKey.generateP256()
        let message = Array("m".utf8)
        let signature = try key.sign(message, algorithm: .ecdsaP256SHA256)
        #expect(signature.count == 64)
        #expect(key.publicKey.verify(signature: signature, message: message, algorithm: .ecdsaP256SHA256))
        #expect(!key.publicKey.verify(signature: signature + [0], message: message, algorithm: .ecdsaP256SHA256))
        #expect(!key.publicKey.verify(signature: [0] + signature, message: message, algorithm: .ecdsaP256SHA256))
        #expect(!key.publicKey.verify(signature: signature, message: message, algorithm: .ed25519))
        #expect(throws: CryptoError.algorithmKeyMismatch) { try key.sign(message, algorithm: .rsaPKCS1SHA256) }
    }
}
