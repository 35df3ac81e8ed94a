import HTTPServer

extension HTTPRequest {
    /// Whether the path was sent in its one canonical spelling, the only one that may match a route
    /// (SPEC section 2): it starts with `/`, has no empty segment (`//`, a trailing `/`) and no `.`
    /// or `..` segment, and percent-encodes only what a path cannot carry as it is, in upper case.
    /// So `%72` for `r` (an unreserved character), `%2F` for `/`, `%2e` (lower case) and an encoded
    /// control character (which would end the path MHD decodes at a NUL) are refused; an encoded space
    /// or `é` in a path parameter is not. MHD's decoded `path` must then be the target's path, decoded.
    public var hasCanonicalPath: Bool {
        let sent = Array(target.utf8.prefix { $0 != UInt8(ascii: "?") })
        guard sent.first == UInt8(ascii: "/"), let decoded = Self.decodeCanonical(sent),
              path.utf8.elementsEqual(String(decoding: decoded, as: UTF8.self).utf8) else { return false }
        if sent.count == 1 { return true }
        return sent.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).allSatisfy { segment in
            !segment.isEmpty && !segment.elementsEqual(".".utf8) && !segment.elementsEqual("..".utf8)
        }
    }

    /// `path` percent-decoded, or nil when it is not spelt canonically.
    private static func decodeCanonical(_ path: [UInt8]) -> [UInt8]? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(path.count)
        var index = 0
        while index < path.count {
            let byte = path[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < path.count, let high = upperHexValue(path[index + 1]), let low = upperHexValue(path[index + 2]) else {
                    return nil
                }
                let value = high << 4 | low
                guard value >= 0x20, value != 0x7F, value != UInt8(ascii: "/"), !isUnreserved(value) else { return nil }
                decoded.append(value)
                index += 3
            } else {
                guard isUnreserved(byte) || "/!$&'()*+,;=:@".utf8.contains(byte) else { return nil }
                decoded.append(byte)
                index += 1
            }
        }
        return decoded
    }

    /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~".utf8.contains(byte)
        }
    }

    private static func upperHexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
