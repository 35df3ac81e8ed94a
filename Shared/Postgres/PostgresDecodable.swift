import Foundation

/// A type that can be read from a column's text-format value.
public protocol PostgresDecodable: Sendable {
    /// Reads the server's text form, or returns nil when it is not a valid value of this type.
    init?(postgresText text: String)
}

extension String: PostgresDecodable {
    /// Any text value as is (also `json`, `numeric`, …).
    public init?(postgresText text: String) { self = text }
}

extension Int64: PostgresDecodable {
    /// An `int2`, `int4` or `int8`.
    public init?(postgresText text: String) { self.init(text) }
}

extension Int: PostgresDecodable {
    /// An `int2`, `int4` or `int8`.
    public init?(postgresText text: String) { self.init(text) }
}

extension Int32: PostgresDecodable {
    /// An `int2` or `int4`.
    public init?(postgresText text: String) { self.init(text) }
}

extension Bool: PostgresDecodable {
    /// A `bool` (`t` or `f`).
    public init?(postgresText text: String) {
        switch text {
        case "t": self = true
        case "f": self = false
        default: return nil
        }
    }
}

extension Double: PostgresDecodable {
    /// A `float4`, `float8` or `numeric`, including `NaN` and `±Infinity`.
    public init?(postgresText text: String) { self.init(text) }
}

extension UUID: PostgresDecodable {
    /// A `uuid`.
    public init?(postgresText text: String) { self.init(uuidString: text) }
}

extension Date: PostgresDecodable {
    /// A `timestamptz` (or `timestamp`, taken as UTC, or `date`) with microsecond precision.
    public init?(postgresText text: String) {
        guard let date = TimestampText.parse(text) else { return nil }
        self = date
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// A `bytea` in the server's hex output format (`\x0001ff`).
    public init?(postgresText text: String) {
        let utf8 = text.utf8
        guard utf8.count % 2 == 0, utf8.starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "x")]) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2 - 1)
        var high: UInt8?
        for character in utf8.dropFirst(2) {
            guard let nibble = Self.nibble(character) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        self = bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
