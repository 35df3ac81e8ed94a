import Foundation

/// Decodes `Decodable` values from JSON the way `JSONDecoder` with the `.iso8601` date strategy
/// does, several times faster for the small messages services exchange: it parses into a
/// ``JSONNode`` tree and reads it without Foundation's intermediate boxing. Errors are
/// `DecodingError`s with the coding path, as `JSONDecoder` throws them; the kinds never convert
/// into each other (a string is never read as a number).
enum MessageJSONDecoder {
    /// Decodes a `T` from one JSON text.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let node: JSONNode
        do {
            node = try JSONNode.parse(bytes)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description))
        }
        return try unbox(type, node, [])
    }

    /// `node` as a `T`: primitives and dates directly, everything else through its `init(from:)`.
    static func unbox<T: Decodable>(_ type: T.Type, _ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> T {
        if T.self == String.self { return try string(node, path()) as! T }
        if T.self == Int64.self { return try integer(Int64.self, node, path()) as! T }
        if T.self == Int.self { return try integer(Int.self, node, path()) as! T }
        if T.self == Bool.self { return try bool(node, path()) as! T }
        if T.self == Date.self { return try date(node, path()) as! T }
        if T.self == Double.self { return try double(node, path()) as! T }
        if T.self == JSONValue.self { return try JSONValue(node, path()) as! T }
        return try T(from: NodeDecoder(node: node, codingPath: path()))
    }

    static func string(_ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let value) = node else { throw mismatch(String.self, node, path()) }
        return value
    }

    static func bool(_ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let value) = node else { throw mismatch(Bool.self, node, path()) }
        return value
    }

    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> T {
        guard case .number(let text) = node else { throw mismatch(T.self, node, path()) }
        if let value = T(text) { return value }
        // 1e3 or 2.0: a whole number written otherwise.
        if let double = Double(text), let value = T(exactly: double) { return value }
        throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Number \(text) does not fit in \(T.self)."))
    }

    static func double(_ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
        guard case .number(let text) = node else { throw mismatch(Double.self, node, path()) }
        guard let value = Double(text), value.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Number \(text) does not fit in Double."))
        }
        return value
    }

    static func date(_ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> Date {
        let text = try string(node, path())
        guard let date = ISO8601Seconds.parse(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Expected date string to be ISO8601-formatted."))
        }
        return date
    }

    static func mismatch(_ type: Any.Type, _ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) -> DecodingError {
        if case .null = node {
            return .valueNotFound(type, .init(codingPath: path(), debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(type, .init(codingPath: path(), debugDescription: "Expected to decode \(type) but found \(node.kind) instead."))
    }
}

/// The `Decoder` over one node.
private struct NodeDecoder: Decoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = node else { throw MessageJSONDecoder.mismatch([String: Any].self, node, codingPath) }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = node else { throw MessageJSONDecoder.mismatch([Any].self, node, codingPath) }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(key: String, value: JSONNode)]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { find(key.stringValue) != nil }

    private func find(_ name: String) -> JSONNode? {
        // The first of duplicated names wins, as with JSONDecoder.
        for member in members where member.key == name { return member.value }
        return nil
    }

    private func node(_ key: Key) throws -> JSONNode {
        guard let node = find(key.stringValue) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath,
                                                      debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return node
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try node(key) { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try MessageJSONDecoder.unbox(type, try node(key), codingPath + [key])
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type, key) }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try Primitive.decode(type, try node(key), codingPath + [key])
    }

    // decodeIfPresent in one lookup (the protocol's default looks the key up three times): a missing
    // key and null are both nil, as with JSONDecoder.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let node = present(key) else { return nil }
        return try MessageJSONDecoder.unbox(type, node, codingPath + [key])
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try presentPrimitive(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try presentPrimitive(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try presentPrimitive(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentPrimitive(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try presentPrimitive(type, key) }

    private func present(_ key: Key) -> JSONNode? {
        guard let node = find(key.stringValue) else { return nil }
        if case .null = node { return nil }
        return node
    }

    private func presentPrimitive<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let node = present(key) else { return nil }
        return try Primitive.decode(type, node, codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try NodeDecoder(node: try node(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try NodeDecoder(node: try node(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(node: find("super") ?? .null, codingPath: codingPath + [JSONCodingKey(stringValue: "super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoder(node: find(key.stringValue) ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONNode]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [JSONNode], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private var path: [any CodingKey] { codingPath + [JSONCodingKey(intValue: currentIndex)] }

    private func current(_ type: Any.Type) throws -> JSONNode {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
        }
        return items[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try current(Never.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try MessageJSONDecoder.unbox(type, try current(type), path)
        currentIndex += 1
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try primitive(type) }
    mutating func decode(_ type: String.Type) throws -> String { try primitive(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try primitive(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try primitive(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try primitive(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try primitive(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try primitive(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try primitive(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try primitive(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try primitive(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try primitive(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try primitive(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try primitive(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try primitive(type) }

    private mutating func primitive<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try Primitive.decode(type, try current(type), path)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try NodeDecoder(node: try current([String: Any].self), codingPath: path).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try NodeDecoder(node: try current([Any].self), codingPath: path).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = NodeDecoder(node: try current(Any.self), codingPath: path)
        currentIndex += 1
        return decoder
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool {
        if case .null = node { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try MessageJSONDecoder.unbox(type, node, codingPath) }
    func decode(_ type: Bool.Type) throws -> Bool { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: String.Type) throws -> String { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Primitive.decode(type, node, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Primitive.decode(type, node, codingPath) }
}

/// The primitive overloads of the containers: one switch over the standard types.
private enum Primitive {
    static func decode<T: Decodable>(_ type: T.Type, _ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> T {
        switch type {
        case is Bool.Type: return try MessageJSONDecoder.bool(node, path()) as! T
        case is String.Type: return try MessageJSONDecoder.string(node, path()) as! T
        case is Double.Type: return try MessageJSONDecoder.double(node, path()) as! T
        case is Float.Type:
            let value = try MessageJSONDecoder.double(node, path())
            guard let float = Float(exactly: value) ?? Optional(Float(value)), float.isFinite else {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Number \(value) does not fit in Float."))
            }
            return float as! T
        case is Int.Type: return try MessageJSONDecoder.integer(Int.self, node, path()) as! T
        case is Int8.Type: return try MessageJSONDecoder.integer(Int8.self, node, path()) as! T
        case is Int16.Type: return try MessageJSONDecoder.integer(Int16.self, node, path()) as! T
        case is Int32.Type: return try MessageJSONDecoder.integer(Int32.self, node, path()) as! T
        case is Int64.Type: return try MessageJSONDecoder.integer(Int64.self, node, path()) as! T
        case is UInt.Type: return try MessageJSONDecoder.integer(UInt.self, node, path()) as! T
        case is UInt8.Type: return try MessageJSONDecoder.integer(UInt8.self, node, path()) as! T
        case is UInt16.Type: return try MessageJSONDecoder.integer(UInt16.self, node, path()) as! T
        case is UInt32.Type: return try MessageJSONDecoder.integer(UInt32.self, node, path()) as! T
        case is UInt64.Type: return try MessageJSONDecoder.integer(UInt64.self, node, path()) as! T
        default: return try MessageJSONDecoder.unbox(type, node, path())
        }
    }
}
