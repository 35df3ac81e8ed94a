/// A statement and its values, written as one string: each interpolated value becomes the next
/// placeholder (`$1`, `$2`, …) and is bound, never spliced into the text.
///
/// ```swift
/// let rows = try await database.query("SELECT name FROM member.members WHERE id = \(memberId)")
/// ```
///
/// An `Optional` that is nil binds SQL NULL. Every interpolation is a placeholder of its own, so a
/// value used twice is bound twice. `\(unescaped:)` splices text into the statement instead: only for
/// identifiers the code itself controls, never for anything a caller sent. (postgres-nio's
/// `PostgresQuery` is the model.)
public struct PostgresQuery: Sendable, Hashable {
    /// The statement text with `$1, $2, …` where the values go.
    public private(set) var sql: String
    /// The values of `$1, $2, …`, in order.
    public private(set) var binds: [PostgresValue]

    /// A statement built at run time from text the code controls, with no values: a string held in a
    /// variable must say so, since a literal with `\(…)` would bind what it interpolates.
    public init(unescaped sql: String) {
        self.sql = sql
        self.binds = []
    }
}

extension PostgresQuery: ExpressibleByStringInterpolation {
    /// A statement with no values.
    public init(stringLiteral value: String) {
        self.init(unescaped: value)
    }

    /// The statement and values an interpolated literal built.
    public init(stringInterpolation: StringInterpolation) {
        self.sql = stringInterpolation.sql
        self.binds = stringInterpolation.binds
    }

    /// Builds the text of a `PostgresQuery` literal: literal parts as they are, values as placeholders.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var sql: String
        var binds: [PostgresValue]

        /// Room for the literal's text and its values.
        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + 3 * interpolationCount)
            binds = []
            binds.reserveCapacity(interpolationCount)
        }

        /// Text of the statement, as written.
        public mutating func appendLiteral(_ literal: String) {
            sql.append(literal)
        }

        /// The next placeholder, bound to `value`.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            bind(value.postgresValue)
        }

        /// The next placeholder, bound to `value`, or to SQL NULL when it is nil.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            bind(value?.postgresValue ?? .null)
        }

        /// `text` spliced into the statement as it is: only for names the code controls (a schema, a table).
        public mutating func appendInterpolation(unescaped text: String) {
            sql.append(text)
        }

        private mutating func bind(_ value: PostgresValue) {
            binds.append(value)
            sql.append("$\(binds.count)")
        }
    }
}

extension PostgresQuery: CustomStringConvertible {
    /// The statement text only: the values may be secrets.
    public var description: String { sql }
}
