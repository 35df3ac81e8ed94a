import Foundation

/// A statement parameter. Values travel as text, except `bytea`, which is sent in binary.
///
/// Statements take their values by interpolation (`PostgresQuery`); a Swift value says which case
/// carries it (`PostgresEncodable`), and nil is `.null`.
public enum PostgresValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// Text (`text`, `varchar`, or anything the server can parse from text).
    case text(String)
    /// A whole number (`int2`, `int4`, `int8`).
    case int(Int64)
    /// A boolean.
    case bool(Bool)
    /// Raw bytes for a `bytea` column; zero bytes are fine.
    case bytea([UInt8])
    /// A point in time for `timestamptz`, sent in UTC with microsecond precision.
    case timestamp(Date)
    /// A double-precision float; NaN and infinities are allowed.
    case double(Double)
    /// A UUID.
    case uuid(UUID)
    /// JSON text for a `json` / `jsonb` column.
    case json(String)
}

extension PostgresValue {
    /// libpq's parameter format: 0 for text, 1 for binary.
    var format: Int32 {
        if case .bytea = self { return 1 }
        return 0
    }

    /// Appends the wire form of the value (text NUL-terminated, bytea raw) and returns its length; nil for NULL.
    func encode(into buffer: inout [UInt8]) throws -> Int32? {
        let start = buffer.count
        switch self {
        case .null:
            return nil
        case .bytea(let bytes):
            buffer.append(contentsOf: bytes)
            return Int32(bytes.count)
        case .text(let text), .json(let text):
            // libpq reads text parameters up to the first NUL, so one inside would silently truncate the value.
            guard !text.utf8.contains(0) else { throw PostgresError.invalidParameter("text contains a NUL character") }
            buffer.append(contentsOf: text.utf8)
        case .int(let value):
            buffer.append(contentsOf: String(value).utf8)
        case .bool(let value):
            buffer.append(value ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        case .timestamp(let date):
            buffer.append(contentsOf: TimestampText.format(date).utf8)
        case .double(let value):
            let text = value.isNaN ? "NaN" : value.isInfinite ? (value < 0 ? "-Infinity" : "Infinity") : String(value)
            buffer.append(contentsOf: text.utf8)
        case .uuid(let uuid):
            buffer.append(contentsOf: uuid.uuidString.utf8)
        }
        let length = Int32(buffer.count - start)
        buffer.append(0)
        return length
    }
}
