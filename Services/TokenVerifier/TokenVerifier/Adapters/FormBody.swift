/// An `application/x-www-form-urlencoded` body, as OAuth token endpoints take them.
enum FormBody {
    /// The bytes of `fields` percent-encoded in order, with the header that names the type.
    static func encode(_ fields: [(String, String)]) -> (header: (String, String), body: [UInt8]) {
        let text = fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
        return (("Content-Type", "application/x-www-form-urlencoded"), Array(text.utf8))
    }

    /// Percent-encodes everything but the unreserved characters of RFC 3986.
    private static func escape(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                output += "%"
                output.unicodeScalars.append(hex[Int(byte >> 4)])
                output.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return output
    }
}
