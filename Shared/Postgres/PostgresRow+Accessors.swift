import Foundation

extension PostgresRow {
    /// The text of `column`; throws when it is NULL or missing.
    public func string(_ column: String) throws -> String { try decode(String.self, column) }
    /// The whole number in `column` (`int2`/`int4`/`int8`).
    public func int(_ column: String) throws -> Int64 { try decode(Int64.self, column) }
    /// The boolean in `column`.
    public func bool(_ column: String) throws -> Bool { try decode(Bool.self, column) }
    /// The bytes of the `bytea` in `column`.
    public func bytes(_ column: String) throws -> [UInt8] { try decode([UInt8].self, column) }
    /// The `timestamptz` in `column`, with microsecond precision.
    public func date(_ column: String) throws -> Date { try decode(Date.self, column) }
    /// The `uuid` in `column`.
    public func uuid(_ column: String) throws -> UUID { try decode(UUID.self, column) }
    /// The floating-point number in `column`.
    public func double(_ column: String) throws -> Double { try decode(Double.self, column) }

    /// The text of `column`, or nil when NULL.
    public func optionalString(_ column: String) throws -> String? { try decodeIfPresent(String.self, column) }
    /// The whole number in `column`, or nil when NULL.
    public func optionalInt(_ column: String) throws -> Int64? { try decodeIfPresent(Int64.self, column) }
    /// The boolean in `column`, or nil when NULL.
    public func optionalBool(_ column: String) throws -> Bool? { try decodeIfPresent(Bool.self, column) }
    /// The bytes of the `bytea` in `column`, or nil when NULL.
    public func optionalBytes(_ column: String) throws -> [UInt8]? { try decodeIfPresent([UInt8].self, column) }
    /// The `timestamptz` in `column`, or nil when NULL.
    public func optionalDate(_ column: String) throws -> Date? { try decodeIfPresent(Date.self, column) }
    /// The `uuid` in `column`, or nil when NULL.
    public func optionalUUID(_ column: String) throws -> UUID? { try decodeIfPresent(UUID.self, column) }
    /// The floating-point number in `column`, or nil when NULL.
    public func optionalDouble(_ column: String) throws -> Double? { try decodeIfPresent(Double.self, column) }

    /// The text of the column at `index`.
    public func string(at index: Int) throws -> String { try decode(String.self, at: index) }
    /// The whole number in the column at `index`.
    public func int(at index: Int) throws -> Int64 { try decode(Int64.self, at: index) }
}
