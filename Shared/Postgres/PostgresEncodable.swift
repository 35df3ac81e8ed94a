import Foundation

/// A Swift value that a `PostgresQuery` can bind: it says which `PostgresValue` carries it, and so
/// how it travels (as text, or `bytea` in binary).
public protocol PostgresEncodable: Sendable {
    /// The value as a statement parameter.
    var postgresValue: PostgresValue { get }
}

extension PostgresValue: PostgresEncodable {
    /// Itself: for a kind that no Swift type names alone, such as `.json(text)`.
    public var postgresValue: PostgresValue { self }
}

extension String: PostgresEncodable {
    /// `text`.
    public var postgresValue: PostgresValue { .text(self) }
}

extension Int: PostgresEncodable {
    /// A whole number (`int2`, `int4`, `int8`).
    public var postgresValue: PostgresValue { .int(Int64(self)) }
}

extension Int64: PostgresEncodable {
    /// A whole number (`int2`, `int4`, `int8`).
    public var postgresValue: PostgresValue { .int(self) }
}

extension Int32: PostgresEncodable {
    /// A whole number (`int2`, `int4`, `int8`).
    public var postgresValue: PostgresValue { .int(Int64(self)) }
}

extension Bool: PostgresEncodable {
    /// A `bool`.
    public var postgresValue: PostgresValue { .bool(self) }
}

extension Double: PostgresEncodable {
    /// A `float8`; NaN and the infinities too.
    public var postgresValue: PostgresValue { .double(self) }
}

extension UUID: PostgresEncodable {
    /// A `uuid`.
    public var postgresValue: PostgresValue { .uuid(self) }
}

extension Date: PostgresEncodable {
    /// A `timestamptz`, in UTC with microsecond precision.
    public var postgresValue: PostgresValue { .timestamp(self) }
}

extension Array: PostgresEncodable where Element == UInt8 {
    /// A `bytea`, sent in binary.
    public var postgresValue: PostgresValue { .bytea(self) }
}
