import HTTPServer

extension HTTPRequest {
    /// Whether the path was sent in its one canonical spelling, the only one that may match a route
    /// (SPEC section 2): it starts with `/`, has no empty segment (`//`, a trailing `/`) and no `.`
    /// or `..` segment, and holds only characters a path may carry unencoded. Every route's path is
    /// plain ASCII, so a `%` (an encoded letter, an encoded `/`) only ever disguises one.
    var hasCanonicalPath: Bool {
        let sent = target.utf8.prefix { $0 != UInt8(ascii: "?") }
        guard sent.first == UInt8(ascii: "/"), sent.allSatisfy(Self.isPathByte) else { return false }
        // MHD decodes the path it hands over; with no `%` in it, decoding changed nothing.
        guard path.utf8.elementsEqual(sent) else { return false }
        if sent.count == 1 { return true }
        return sent.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).allSatisfy { segment in
            !segment.isEmpty && !segment.elementsEqual(".".utf8) && !segment.elementsEqual("..".utf8)
        }
    }

    /// RFC 3986's `pchar` without percent-encoding, and `/`.
    private static func isPathByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "/-._~!$&'()*+,;=:@".utf8.contains(byte)
        }
    }
}
