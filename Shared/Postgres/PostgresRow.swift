/// One result row; read columns by name or by index with `decode` or the typed accessors (`string`, `int`, …).
public struct PostgresRow: Sendable {
    private let storage: ResultStorage
    private let offset: Int

    init(storage: ResultStorage, offset: Int) {
        self.storage = storage
        self.offset = offset
    }

    /// Column names in result order.
    public var columns: [String] { storage.columns }

    /// The value of `column` as `T`; throws when the column is missing, NULL, or not a `T`.
    public func decode<T: PostgresDecodable>(_ type: T.Type, _ column: String) throws -> T {
        guard let value = try decodeIfPresent(type, column) else {
            throw PostgresError.decoding(column: column, reason: "is NULL, expected \(T.self)")
        }
        return value
    }

    /// The value of the column at `index` as `T`; throws when out of range, NULL, or not a `T`.
    public func decode<T: PostgresDecodable>(_ type: T.Type, at index: Int) throws -> T {
        guard let value = try decodeIfPresent(type, at: index) else {
            throw PostgresError.decoding(column: "#\(index)", reason: "is NULL, expected \(T.self)")
        }
        return value
    }

    /// The value of `column` as `T`, or nil when it is NULL; throws when the column is missing or not a `T`.
    public func decodeIfPresent<T: PostgresDecodable>(_ type: T.Type, _ column: String) throws -> T? {
        guard let index = storage.index(of: column) else {
            throw PostgresError.decoding(column: column, reason: "no such column (have: \(columns.joined(separator: ", ")))")
        }
        return try read(type, index: index, name: column)
    }

    /// The value of the column at `index` as `T`, or nil when it is NULL.
    public func decodeIfPresent<T: PostgresDecodable>(_ type: T.Type, at index: Int) throws -> T? {
        guard columns.indices.contains(index) else {
            throw PostgresError.decoding(column: "#\(index)", reason: "index out of range (\(columns.count) columns)")
        }
        return try read(type, index: index, name: columns[index])
    }

    /// True when `column` is NULL; a column that does not exist also counts as NULL.
    public func isNull(_ column: String) -> Bool {
        guard let index = storage.index(of: column) else { return true }
        return storage.cells[offset + index] == nil
    }

    /// True when the column at `index` is NULL or out of range.
    public func isNull(at index: Int) -> Bool {
        guard columns.indices.contains(index) else { return true }
        return storage.cells[offset + index] == nil
    }

    private func read<T: PostgresDecodable>(_ type: T.Type, index: Int, name: String) throws -> T? {
        guard let text = storage.cells[offset + index] else { return nil }
        guard let value = T(postgresText: text) else {
            // The value itself is not quoted: it may be a secret.
            throw PostgresError.decoding(column: name, reason: "not a valid \(T.self)")
        }
        return value
    }
}
