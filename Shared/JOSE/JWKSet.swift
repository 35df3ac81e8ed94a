import JSON
/// A JWK Set (RFC 7517 §5), as served at a provider's `jwks_uri`.
///
/// Decoding is lenient per key: an entry that is not a decodable JWK object is dropped, not fatal.
public struct JWKSet: Codable, Sendable, Hashable {
    /// The keys.
    public var keys: [JWK]

    private enum CodingKeys: String, CodingKey {
        case keys
    }

    /// A set of the given keys.
    public init(keys: [JWK]) {
        self.keys = keys
    }

    /// Decodes `{"keys": [...]}`, skipping entries that are not JWK objects.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var entries = try container.nestedUnkeyedContainer(forKey: .keys)
        var keys: [JWK] = []
        while !entries.isAtEnd {
            if let key = try? entries.decode(JWK.self) {
                keys.append(key)
            } else {
                // Consume the entry we could not read so the loop moves on.
                _ = try entries.decode(JSONValue.self)
            }
        }
        self.keys = keys
    }

    /// Encodes `{"keys": [...]}` with public members only.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(keys, forKey: .keys)
    }
}
