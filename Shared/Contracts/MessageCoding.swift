import Foundation

/// The one JSON encoding of NATS messages: ISO 8601 dates, sorted keys off for speed.
public enum MessageCoding {
    /// Encodes a message.
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(value))
    }

    /// Decodes a message.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(bytes))
    }
}
