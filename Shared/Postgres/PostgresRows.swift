/// The materialised result of one statement: its rows and the number of rows it affected.
public struct PostgresRows: Sendable, Sequence {
    /// The rows in the order the server returned them.
    public let rows: [PostgresRow]
    /// Rows inserted, updated, deleted or selected, as the server reported (0 for other commands).
    public let affectedRows: Int
    /// Column names in result order (empty for commands without a result set).
    public let columns: [String]

    init(storage: ResultStorage, affectedRows: Int) {
        let width = storage.columns.count
        let count = width == 0 ? 0 : storage.cells.count / width
        rows = (0..<count).map { PostgresRow(storage: storage, offset: $0 * width) }
        columns = storage.columns
        self.affectedRows = affectedRows
    }

    /// The first row, or nil when there is none.
    public var first: PostgresRow? { rows.first }
    /// The number of rows.
    public var count: Int { rows.count }
    /// True when there are no rows.
    public var isEmpty: Bool { rows.isEmpty }

    /// Iterates over the rows.
    public func makeIterator() -> IndexingIterator<[PostgresRow]> { rows.makeIterator() }
}
