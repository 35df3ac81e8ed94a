import Crypto

extension JWK {
    /// The RFC 7638 thumbprint: base64url SHA-256 of the key's required members in
    /// lexicographic order, without whitespace. A stable, content-derived `kid`.
    public func thumbprint() throws(JOSEError) -> String {
        let members: [(String, String?)]
        switch kty {
        case "RSA": members = [("e", e), ("kty", kty), ("n", n)]
        case "EC": members = [("crv", crv), ("kty", kty), ("x", x), ("y", y)]
        case "OKP": members = [("crv", crv), ("kty", kty), ("x", x)]
        default: throw JOSEError.unsupportedKey
        }
        var json = "{"
        for (index, (name, value)) in members.enumerated() {
            // Required members are base64url or fixed names: no character needs escaping.
            guard let value, value.utf8.allSatisfy({ $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
                throw JOSEError.malformed
            }
            json += (index == 0 ? "" : ",") + "\"\(name)\":\"\(value)\""
        }
        json += "}"
        return Base64URL.encode(Digest.sha256(json))
    }
}
