import Contracts
import Foundation
import JSON
import Testing

/// Foundation's coders with the settings `MessageCoding` stands in for.
private func foundationEncode<T: Encodable>(_ value: T) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.withoutEscapingSlashes]
    return Array(try encoder.encode(value))
}

private func foundationDecode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(type, from: Data(bytes))
}

/// The same JSON value, whatever the member order and number spelling.
private func sameJSON(_ first: [UInt8], _ second: [UInt8]) throws -> Bool {
    let one = try JSONSerialization.jsonObject(with: Data(first), options: [.fragmentsAllowed])
    let two = try JSONSerialization.jsonObject(with: Data(second), options: [.fragmentsAllowed])
    return NSArray(array: [one]).isEqual(to: [two])
}

/// Whole seconds, as the wire carries dates.
private let when = Date(timeIntervalSince1970: 1_795_976_400)

@Suite("Message JSON against Foundation's coders")
struct MessageJSONCompatibilityTests {
    /// Encodes with both, checks the same JSON came out, then decodes each with the other and
    /// checks the value survived.
    private func check<T: Codable & Equatable>(_ value: T) throws {
        let ours = try MessageCoding.encode(value)
        let theirs = try foundationEncode(value)
        #expect(try sameJSON(ours, theirs), "\(String(decoding: ours, as: UTF8.self)) vs \(String(decoding: theirs, as: UTF8.self))")
        #expect(try MessageCoding.decode(T.self, from: theirs) == value)
        #expect(try foundationDecode(T.self, ours) == value)
    }

    @Test("service contracts, events and HTTP bodies")
    func contracts() throws {
        let profile = MemberProfile(memberId: 42, email: "a\"b\\c/d@example.com", emailVerified: false, name: "Zoë 🍎 \n\t\u{1}",
                                    identities: [LinkedIdentity(provider: .google, email: nil, emailVerified: false, linkedAt: when),
                                                 LinkedIdentity(provider: .apple, email: "x@privaterelay.appleid.com", emailVerified: true,
                                                                linkedAt: when)],
                                    createdAt: when)
        try check(profile)
        try check(MemberProfile(memberId: -9_223_372_036_854_775_807, email: nil, emailVerified: false, name: nil, identities: [], createdAt: when))
        try check(VerifyRequest(provider: .naver, token: "tok", nonce: nil, authorizationCode: "code"))
        try check(VerifiedIdentity(provider: .apple, subject: "001.abc", email: "e@x", emailVerified: true))
        try check(LoginResponse(accessToken: "a.b.c", refreshToken: "r", expiresIn: 900, memberId: 7, isExistingMember: false))
        try check(MemberResponse(profile))
        try check(ErrorEnvelope(ServiceFailure(.invalidRefreshToken, "The refresh token is not valid.")))
        try check(SessionEnded(sessionId: "s-1", memberId: 3, reason: "logout", tokensExpireAt: when))
        try check(SessionEnded(sessionId: "s-1", memberId: 3, reason: "logout"))
        try check(MemberDeleted(memberId: 5, grants: [ProviderGrant(provider: .apple, subject: "s", sealedCredential: "c")], reason: "requested"))
        let claims: JSONValue = .object(["sub": .string("1"), "n": .integer(-3), "f": .number(1.5), "big": .number(1e300),
                                         "ok": .bool(true), "none": .null, "list": .array([.integer(1), .string("2"), .object([:])])])
        try check(claims)
    }

    @Test("generic envelopes: replies with data or an error, events")
    func envelopes() throws {
        let reply = ServiceReply<MemberLoginReply>.success(MemberLoginReply(memberId: 1, isExistingMember: true))
        let ours = try MessageCoding.encode(reply)
        #expect(try sameJSON(ours, try foundationEncode(reply)))
        #expect(try MessageCoding.decode(ServiceReply<MemberLoginReply>.self, from: ours).data == reply.data)
        let failure = ServiceReply<MemberLoginReply>.failure(ServiceFailure(.notFound, "gone"))
        #expect(try sameJSON(try MessageCoding.encode(failure), try foundationEncode(failure)))
        #expect(try MessageCoding.decode(ServiceReply<MemberLoginReply>.self, from: try foundationEncode(failure)).error?.code == .notFound)
        let event = EventEnvelope(Events.sessionEnded, SessionEnded(sessionId: "s", memberId: 1, reason: "r"), occurredAt: when)
        #expect(try sameJSON(try MessageCoding.encode(event), try foundationEncode(event)))
        let decoded = try MessageCoding.decode(EventEnvelope<SessionEnded>.self, from: try foundationEncode(event))
        #expect(decoded.data == event.data && decoded.occurredAt == when && decoded.id == event.id)
    }

    @Test("dates: whole seconds out; fractions and offsets read")
    func dates() throws {
        struct Stamp: Codable, Equatable { var at: Date }
        for seconds in [0.0, 951_782_400, 1_795_976_400.999, 4_102_444_799, 253_402_300_799] {
            let stamp = Stamp(at: Date(timeIntervalSince1970: seconds))
            #expect(try sameJSON(try MessageCoding.encode(stamp), try foundationEncode(stamp)), "\(seconds)")
        }
        #expect(String(decoding: try MessageCoding.encode(Stamp(at: when)), as: UTF8.self) == #"{"at":"2026-11-29T18:20:00Z"}"#)
        let offset = try MessageCoding.decode(Stamp.self, from: Array(#"{"at":"2026-11-29T20:20:00.250+02:00"}"#.utf8))
        #expect(offset.at.timeIntervalSince1970 == 1_795_976_400.25)
        #expect(throws: DecodingError.self) { try MessageCoding.decode(Stamp.self, from: Array(#"{"at":"2026-13-01T00:00:00Z"}"#.utf8)) }
        #expect(throws: DecodingError.self) { try MessageCoding.decode(Stamp.self, from: Array(#"{"at":"yesterday"}"#.utf8)) }
    }

    @Test("a date outside years 0000 to 9999 is written as the edge of that range, never a trap")
    func datesOutOfRange() throws {
        func text(_ seconds: Double) throws -> String {
            String(decoding: try MessageCoding.encode(["at": Date(timeIntervalSince1970: seconds)]), as: UTF8.self)
        }
        for seconds in [-1e12, -Double(Int64.max), -.infinity, .nan] {
            #expect(try text(seconds) == (seconds.isNaN ? #"{"at":"1970-01-01T00:00:00Z"}"# : #"{"at":"0000-01-01T00:00:00Z"}"#), "\(seconds)")
        }
        for seconds in [1e12, Double(Int64.max) * 2, .infinity] {
            #expect(try text(seconds) == #"{"at":"9999-12-31T23:59:59Z"}"#, "\(seconds)")
        }
    }
}

@Suite("Message JSON parsing")
struct MessageJSONParsingTests {
    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try MessageCoding.decode(type, from: Array(text.utf8))
    }

    @Test("escapes and Unicode, as Foundation reads them")
    func strings() throws {
        let text = #"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u4e2d\ud83c\udf4e", "plain é 中 🍎"]"#
        #expect(try decode([String].self, text) == (try foundationDecode([String].self, Array(text.utf8))))
    }

    @Test("malformed input is a DecodingError, never a crash", arguments: [
        "", " ", "{", "[1,]", "{\"a\":}", "{\"a\" 1}", "[1 2]", "tru", "nul", "01", "1.", "-", "1e", "\"abc", "\"\\x\"",
        "\"\\ud800\"", "\"\\udc00x\"", "\"\\u12\"", "\"a\u{01}b\"", "[1] 2", "{\"a\":1,}", "{1:2}",
        String(repeating: "[", count: 300) + String(repeating: "]", count: 300),
    ])
    func malformed(_ text: String) {
        #expect(throws: DecodingError.self) { try decode(JSONValue.self, text) }
    }

    @Test("invalid UTF-8 is refused")
    func invalidUTF8() {
        #expect(throws: DecodingError.self) { try MessageCoding.decode(String.self, from: [0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test("kinds never convert: a string is not a number, a number is not a string or a boolean")
    func kinds() throws {
        struct Number: Decodable { var n: Int64 }
        struct Text: Decodable { var s: String }
        struct Flag: Decodable { var b: Bool }
        #expect(throws: DecodingError.self) { try decode(Number.self, #"{"n":"1"}"#) }
        #expect(throws: DecodingError.self) { try decode(Number.self, #"{"n":1.5}"#) }
        #expect(throws: DecodingError.self) { try decode(Number.self, #"{"n":9223372036854775808}"#) }
        #expect(throws: DecodingError.self) { try decode(Text.self, #"{"s":1}"#) }
        #expect(throws: DecodingError.self) { try decode(Flag.self, #"{"b":1}"#) }
        #expect(throws: DecodingError.self) { try decode(Number.self, #"{"m":1}"#) }
        #expect(throws: DecodingError.self) { try decode(Number.self, #"{"n":null}"#) }
        #expect(try decode(Number.self, #"{"n":-9223372036854775808}"#).n == .min)
        #expect(try decode(JSONValue.self, #"[1, 1.5, "1", true, null, {"k": []}]"#)
            == .array([.integer(1), .number(1.5), .string("1"), .bool(true), .null, .object(["k": .array([])])]))
    }

    @Test("an error names the path to the bad value, as Foundation's does")
    func codingPath() throws {
        struct Inner: Decodable { var n: Int }
        struct Outer: Decodable { var items: [Inner] }
        do {
            _ = try decode(Outer.self, #"{"items":[{"n":1},{"n":"two"}]}"#)
            Issue.record("decoded a string as a number")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["items", "Index 1", "n"])
        }
    }

    @Test("optional members: missing and null are nil, a wrong kind throws with its path, as with Foundation")
    func optionalMembers() throws {
        struct Inner: Codable, Equatable { var a: Int }
        struct Optionals: Codable, Equatable {
            var i: Int?
            var s: String?
            var d: Date?
            var b: Bool?
            var l: Int64?
            var x: Double?
            var inner: Inner?
        }
        let empty = Optionals()
        for text in ["{}", #"{"i":null,"s":null,"d":null,"b":null,"l":null,"x":null,"inner":null}"#] {
            #expect(try decode(Optionals.self, text) == empty)
            #expect(try foundationDecode(Optionals.self, Array(text.utf8)) == empty)
        }
        let full = #"{"i":1,"s":"t","d":"2026-12-01T00:00:00Z","b":true,"l":-5,"x":1.5,"inner":{"a":2}}"#
        #expect(try decode(Optionals.self, full) == (try foundationDecode(Optionals.self, Array(full.utf8))))
        for (text, path) in [(#"{"i":"1"}"#, ["i"]), (#"{"s":1}"#, ["s"]), (#"{"b":1}"#, ["b"]), (#"{"l":true}"#, ["l"]),
                             (#"{"x":"1"}"#, ["x"]), (#"{"inner":{"a":"2"}}"#, ["inner", "a"]), (#"{"inner":3}"#, ["inner"])] {
            for decodes in [{ _ = try decode(Optionals.self, text) }, { _ = try foundationDecode(Optionals.self, Array(text.utf8)) }] {
                do {
                    try decodes()
                    Issue.record("decoded \(text)")
                } catch DecodingError.typeMismatch(_, let context) {
                    #expect(context.codingPath.map(\.stringValue) == path, "\(text)")
                }
            }
        }
    }

    @Test("duplicate member names: the same value wins as with Foundation")
    func duplicates() throws {
        struct One: Decodable, Equatable { var a: Int }
        let text = #"{"a":1,"a":2}"#
        #expect(try decode(One.self, text) == (try foundationDecode(One.self, Array(text.utf8))))
    }
}
