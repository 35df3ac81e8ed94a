/// `JSONValue` straight from and to the coder's trees, without a `Decoder` or `Encoder` per value:
/// claims, headers and relayed events are read and written this way.
extension JSONValue {
    /// The value `node` holds, as `init(from:)` reads it: a number written as a whole number that
    /// fits in 64 bits is an `integer`, any other finite number a `number`, and of a member name
    /// given twice the first value counts. A number beyond `Double` is `dataCorrupted` at its path.
    init(_ node: JSONNode, _ path: [any CodingKey]) throws {
        do {
            self = try Self.value(node)
        } catch {
            let at = path + error.keys.reversed()
            throw DecodingError.dataCorrupted(.init(codingPath: at, debugDescription: "Number \(error.text) does not fit in Double."))
        }
    }

    private static func value(_ node: JSONNode) throws(Unrepresentable) -> JSONValue {
        switch node {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .string(let value): return .string(value)
        case .number(let text):
            if let value = Int64(text) { return .integer(value) }
            guard let value = Double(text), value.isFinite else { throw Unrepresentable(text: text) }
            // 1e3 or 2.0: a whole number written otherwise, as the decoder reads an Int64.
            if let whole = Int64(exactly: value) { return .integer(whole) }
            return .number(value)
        case .array(let items):
            var values: [JSONValue] = []
            values.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                do {
                    values.append(try value(item))
                } catch {
                    throw error.under(JSONCodingKey(intValue: index))
                }
            }
            return .array(values)
        case .object(let members):
            var object: [String: JSONValue] = Dictionary(minimumCapacity: members.count)
            for member in members where object[member.key] == nil {
                do {
                    object[member.key] = try value(member.value)
                } catch {
                    throw error.under(JSONCodingKey(stringValue: member.key))
                }
            }
            return .object(object)
        }
    }

    /// The value as the encoder's tree, members in the dictionary's order as `encode(to:)` writes
    /// them; a number that is not finite is `invalidValue` at its path.
    func encoded(_ path: [any CodingKey]) throws -> EncodedValue {
        do {
            return try tree()
        } catch {
            let at = path + error.keys.reversed()
            let value = Double(error.text) ?? .nan
            throw EncodingError.invalidValue(value, .init(codingPath: at, debugDescription: "Unable to encode \(error.text) in JSON."))
        }
    }

    private func tree() throws(Unrepresentable) -> EncodedValue {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .integer(let value): return .number(String(value))
        case .number(let value):
            guard value.isFinite else { throw Unrepresentable(text: value.description) }
            return .number(MessageJSONEncoder.finiteNumber(value))
        case .string(let value): return .string(value)
        case .array(let values):
            let box = ArrayBox()
            box.items.reserveCapacity(values.count)
            for (index, value) in values.enumerated() {
                do {
                    box.items.append(try value.tree())
                } catch {
                    throw error.under(JSONCodingKey(intValue: index))
                }
            }
            return .array(box)
        case .object(let members):
            let box = ObjectBox()
            box.members.reserveCapacity(members.count)
            for (key, value) in members {
                do {
                    box.members.append((key, try value.tree()))
                } catch {
                    throw error.under(JSONCodingKey(stringValue: key))
                }
            }
            return .object(box)
        }
    }
}

/// A number JSON cannot carry (beyond `Double`, or not finite), with the keys to it, innermost first.
private struct Unrepresentable: Error {
    let text: String
    var keys: [any CodingKey] = []

    func under(_ key: any CodingKey) -> Unrepresentable {
        var error = self
        error.keys.append(key)
        return error
    }
}
