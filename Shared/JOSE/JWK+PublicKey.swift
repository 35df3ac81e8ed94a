import Crypto

extension JWK {
    /// Smallest RSA modulus accepted, in bits.
    public static let minimumRSABits = 2048

    /// Builds the public key, enforcing policy: RSA n ≥ 2048 bits, e odd ≥ 3, no ROCA-weak modulus;
    /// EC only on P-256; OKP only Ed25519. Symmetric (`oct`) and other key types are refused with `unsupportedKey`.
    public func publicKey() throws(JOSEError) -> PublicKey {
        switch kty {
        case "RSA":
            guard let n, let e, let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e) else {
                throw JOSEError.malformed.with("RSA JWK needs base64url n and e")
            }
            let significant = Array(modulus.drop { $0 == 0 })
            guard let first = significant.first,
                  (significant.count - 1) * 8 + (8 - first.leadingZeroBitCount) >= Self.minimumRSABits else {
                throw JOSEError.unsupportedKey.with("RSA modulus under \(Self.minimumRSABits) bits")
            }
            guard !ROCAFingerprint.matches(modulus: significant) else {
                throw JOSEError.unsupportedKey.with("RSA modulus has the ROCA (CVE-2017-15361) weakness")
            }
            do {
                return try PublicKey.rsa(modulus: significant, exponent: exponent)
            } catch {
                throw JOSEError.unsupportedKey.with("RSA key refused: \(error)")
            }
        case "EC":
            guard crv == "P-256" else { throw JOSEError.unsupportedKey.with("EC curve \(crv ?? "missing") is not P-256") }
            guard let x, let y, let xBytes = Base64URL.decode(x), let yBytes = Base64URL.decode(y) else {
                throw JOSEError.malformed.with("EC JWK needs base64url x and y")
            }
            do {
                return try PublicKey.p256(x: xBytes, y: yBytes)
            } catch {
                throw JOSEError.unsupportedKey.with("P-256 key refused: \(error)")
            }
        case "OKP":
            guard crv == "Ed25519" else { throw JOSEError.unsupportedKey.with("OKP curve \(crv ?? "missing") is not Ed25519") }
            guard let x, let raw = Base64URL.decode(x) else { throw JOSEError.malformed.with("OKP JWK needs base64url x") }
            do {
                return try PublicKey.ed25519(raw)
            } catch {
                throw JOSEError.unsupportedKey.with("Ed25519 key refused: \(error)")
            }
        default:
            throw JOSEError.unsupportedKey.with("key type \(kty) is not RSA, EC or OKP")
        }
    }

    /// A public JWK for `publicKey`, for publishing in a JWKS; `use` is `sig`.
    public init(publicKey: PublicKey, kid: String, alg: JWSAlgorithm) {
        self.init(kty: "", kid: kid, alg: alg.rawValue, use: "sig")
        if let (modulus, exponent) = publicKey.rsaComponents {
            kty = "RSA"
            n = Base64URL.encode(modulus)
            e = Base64URL.encode(exponent)
        } else if let (xBytes, yBytes) = publicKey.p256Coordinates {
            kty = "EC"
            crv = "P-256"
            x = Base64URL.encode(xBytes)
            y = Base64URL.encode(yBytes)
        } else if let raw = publicKey.ed25519Raw {
            kty = "OKP"
            crv = "Ed25519"
            x = Base64URL.encode(raw)
        }
    }
}
