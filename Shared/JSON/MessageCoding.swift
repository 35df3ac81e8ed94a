/// The project's one JSON coding: NATS messages, the gateway's HTTP bodies, JWT headers and claims,
/// and the providers' answers. Dates are ISO 8601 strings in whole seconds, members come in
/// declaration order, slashes are not escaped. It writes and reads what `JSONEncoder` and
/// `JSONDecoder` with those settings would, several times faster, with the same `EncodingError`s
/// and `DecodingError`s (kind and coding path); a kind is never converted into another (a string
/// is never read as a number), and of a member name given twice the first value counts.
public enum MessageCoding {
    /// Encodes `value` as one JSON text.
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        try MessageJSONEncoder.encode(value)
    }

    /// Encodes `value` with each object's members in the UTF-8 order of their names (for the ASCII
    /// names of JWT headers and claims, what `JSONEncoder`'s `.sortedKeys` writes), so the same
    /// value always gives the same bytes, whatever order a dictionary holds them in.
    public static func encodeSortingKeys<T: Encodable>(_ value: T) throws -> [UInt8] {
        try MessageJSONEncoder.encode(value, sortingKeys: true)
    }

    /// `text` as a JSON string literal, quoted and escaped as `encode` writes strings: for JSON put
    /// together by hand in a fixed member order (log lines, JWS headers).
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        MessageJSONEncoder.write(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes a `T` from one JSON text (RFC 8259, UTF-8, nested at most 256 deep).
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try MessageJSONDecoder.decode(type, from: bytes)
    }
}
