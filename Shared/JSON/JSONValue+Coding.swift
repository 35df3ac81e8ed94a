/// Typed values in and out of a `JSONValue`, for a message member whose type the contract does not
/// name (the contracts hold plain data; a JWK set travels as JSON and JOSE reads it).
extension JSONValue {
    /// The JSON `value` encodes to, exactly as `MessageCoding.encode` writes it.
    public init<T: Encodable>(encoding value: T) throws {
        self = try MessageCoding.decode(JSONValue.self, from: MessageCoding.encode(value))
    }

    /// Decodes a `T` from this value, as `MessageCoding.decode` would from its JSON text.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try MessageCoding.decode(type, from: MessageCoding.encode(self))
    }
}
