import JSON

/// A JWS in compact serialisation (`header.payload.signature`), parsed but not yet verified.
public struct CompactJWS: Sendable {
    /// The decoded protected header.
    public let header: JOSEHeader
    /// The decoded payload bytes (for a JWT, the claims JSON).
    public let payload: [UInt8]
    /// The ASCII bytes `base64url(header) "." base64url(payload)` that the signature covers.
    public let signingInput: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]

    /// Default upper bound on a token's length, in bytes (8 KiB).
    public static let defaultMaxLength = 8192

    /// Parses a compact JWS: exactly three segments, strict base64url, a header that is a JSON object with `alg`.
    ///
    /// Throws `tooLarge` above `maxLength` bytes and `malformed` for any structural problem. The payload and
    /// signature may be empty here; `verify` refuses an empty signature.
    public static func parse(_ token: String, maxLength: Int = defaultMaxLength) throws(JOSEError) -> CompactJWS {
        var token = token
        let result: Result<CompactJWS, JOSEError> = token.withUTF8 { bytes in
            guard bytes.count <= maxLength else { return .failure(.tooLarge) }
            var dots: [Int] = []
            for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") {
                dots.append(index)
                if dots.count > 2 { return .failure(JOSEError.malformed.with("more than three segments")) }
            }
            guard dots.count == 2 else { return .failure(JOSEError.malformed.with("not three segments")) }
            let headerPart = UnsafeBufferPointer(rebasing: bytes[0..<dots[0]])
            let payloadPart = UnsafeBufferPointer(rebasing: bytes[(dots[0] + 1)..<dots[1]])
            let signaturePart = UnsafeBufferPointer(rebasing: bytes[(dots[1] + 1)...])
            guard !headerPart.isEmpty else { return .failure(JOSEError.malformed.with("empty header")) }
            guard let headerBytes = Base64URL.decode(utf8: headerPart),
                  let payload = Base64URL.decode(utf8: payloadPart),
                  let signature = Base64URL.decode(utf8: signaturePart) else {
                return .failure(JOSEError.malformed.with("invalid base64url"))
            }
            let header: JOSEHeader
            do {
                header = try MessageCoding.decode(JOSEHeader.self, from: headerBytes)
            } catch {
                return .failure(JOSEError.malformed.with("header is not a JSON object with a string alg"))
            }
            let signingInput = Array(UnsafeBufferPointer(rebasing: bytes[0..<dots[1]]))
            return .success(CompactJWS(header: header, payload: payload, signingInput: signingInput, signature: signature))
        }
        return try result.get()
    }
}
