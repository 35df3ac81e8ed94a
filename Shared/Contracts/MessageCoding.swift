/// The one JSON encoding of NATS messages (and of the gateway's HTTP bodies): ISO 8601 dates in
/// whole seconds, members in declaration order, slashes unescaped. `MessageJSONEncoder` and
/// `MessageJSONDecoder` write and read it as `JSONEncoder` and `JSONDecoder` with those settings
/// would, several times faster.
public enum MessageCoding {
    /// Encodes a message.
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        try MessageJSONEncoder.encode(value)
    }

    /// Decodes a message.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try MessageJSONDecoder.decode(type, from: bytes)
    }
}
