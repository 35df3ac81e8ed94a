import Foundation
import JSON
import Testing

@Suite("JSONValue and sorted members in the message coder")
struct JSONValueCodingTests {
    private let samples = [
        #"{"sub":"1","n":-3,"f":1.5,"big":1e300,"whole":2.0,"exp":1e3,"huge":12345678901234567890,"ok":true,"none":null}"#,
        #"[1, 1.5, "1", true, null, {"k": [], "u": "é 中 🍎 \u0001 \/"}]"#,
        #"{"a":1,"a":2,"b":{"c":[{"d":-0}]}}"#,
        #""plain""#, "-9223372036854775808", "9223372036854775807",
    ]

    @Test("reads the same values as through Foundation's decoder, duplicates included")
    func decodesLikeFoundation() throws {
        for text in samples {
            let ours = try MessageCoding.decode(JSONValue.self, from: Array(text.utf8))
            #expect(ours == (try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))), "\(text)")
        }
    }

    @Test("writes the same JSON as JSONValue's encode(to:) through Foundation's encoder")
    func encodesLikeFoundation() throws {
        for text in samples {
            let value = try MessageCoding.decode(JSONValue.self, from: Array(text.utf8))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let theirs = String(decoding: try encoder.encode(value), as: UTF8.self)
            #expect(String(decoding: try MessageCoding.encodeSortingKeys(value), as: UTF8.self) == theirs, "\(text)")
            #expect(try MessageCoding.decode(JSONValue.self, from: try MessageCoding.encode(value)) == value)
        }
    }

    @Test("a typed value in and out of a JSONValue, as a contract member carries it")
    func typedValues() throws {
        struct Key: Codable, Equatable { var kty = "EC", kid: String? = "k/1", keyOps: [String]? = ["verify"], n: Int64 = -1 }
        struct Set: Codable, Equatable { var keys: [Key] }
        let set = Set(keys: [Key(), Key(kid: nil, keyOps: nil, n: 9_007_199_254_740_993)])
        let value = try JSONValue(encoding: set)
        #expect(value == .object(["keys": .array([
            .object(["kty": .string("EC"), "kid": .string("k/1"), "keyOps": .array([.string("verify")]), "n": .integer(-1)]),
            .object(["kty": .string("EC"), "n": .integer(9_007_199_254_740_993)]),
        ])]))
        #expect(try value.decode(Set.self) == set)
        #expect(throws: DecodingError.self) { try JSONValue.array([]).decode(Set.self) }
    }

    @Test("a number JSON cannot carry is an error at its path")
    func unrepresentable() throws {
        do {
            _ = try MessageCoding.decode(JSONValue.self, from: Array(#"{"a":[0,1e400]}"#.utf8))
            Issue.record("decoded 1e400")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["a", "Index 1"])
        }
        do {
            _ = try MessageCoding.encode(JSONValue.object(["x": .array([.number(.infinity)])]))
            Issue.record("encoded infinity")
        } catch EncodingError.invalidValue(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["x", "Index 0"])
        }
    }

    @Test("sorted members: UTF-8 order at every depth, as JSONEncoder's .sortedKeys for ASCII names")
    func sortedMembers() throws {
        struct Claims: Encodable {
            var sub = "42", iss = "https://login.example/a", aud = ["api", "b"], exp: Int64 = 1_700_000_900
            var is_private_email = true, email_verified = false, nested = ["z": 1, "a": 2, "_": 3, "B": 4]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let ours = String(decoding: try MessageCoding.encodeSortingKeys(Claims()), as: UTF8.self)
        #expect(ours == String(decoding: try encoder.encode(Claims()), as: UTF8.self))
        #expect(ours.hasPrefix(#"{"aud":["api","b"],"email_verified":false,"exp":1700000900,"is_private_email":true,"iss":"#))
        // Without sorting, the order the type encodes its members in.
        #expect(String(decoding: try MessageCoding.encode(Claims()), as: UTF8.self).hasPrefix(#"{"sub":"42","iss":"#))
    }
}
