import Postgres

extension PostgresValue {
    /// Text, or SQL NULL for nil.
    public static func optionalText(_ value: String?) -> PostgresValue {
        value.map { .text($0) } ?? .null
    }

    /// A boolean, or SQL NULL for nil.
    public static func optionalBool(_ value: Bool?) -> PostgresValue {
        value.map { .bool($0) } ?? .null
    }

    /// A whole number, or SQL NULL for nil.
    public static func optionalInt(_ value: Int64?) -> PostgresValue {
        value.map { .int($0) } ?? .null
    }
}
