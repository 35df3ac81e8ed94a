extension HTTPClientRequest {
    /// Rejects what libcurl would send verbatim and break the request with: a method or header name that is
    /// not an HTTP token, a line break or NUL in a header value, a NUL in the URL; and a negative body limit.
    func validate() throws(HTTPClientError) {
        guard !url.utf8.contains(0), !url.isEmpty else { throw .invalidURL }
        guard Self.isToken(method), (maxResponseBodyBytes ?? 0) >= 0 else { throw .invalidRequest }
        for (name, value) in headers {
            guard Self.isToken(name),
                  !value.utf8.contains(where: { $0 == 0 || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") })
            else { throw .invalidRequest }
        }
    }

    /// RFC 9110 `token`: visible ASCII except delimiters.
    private static func isToken(_ text: String) -> Bool {
        guard !text.isEmpty else { return false }
        for byte in text.utf8 {
            switch byte {
            case 0...0x20, 0x7F...,
                 UInt8(ascii: "\""), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ","), UInt8(ascii: "/"),
                 UInt8(ascii: ":"), UInt8(ascii: ";"), UInt8(ascii: "<"), UInt8(ascii: "="), UInt8(ascii: ">"),
                 UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "\\"), UInt8(ascii: "]"),
                 UInt8(ascii: "{"), UInt8(ascii: "}"):
                return false
            default:
                continue
            }
        }
        return true
    }
}
