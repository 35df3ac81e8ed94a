/// The materialised text cells of one result, shared by the `PostgresRow` values that read it.
final class ResultStorage: Sendable {
    /// Column names in result order.
    let columns: [String]
    /// Cells row by row; nil is SQL NULL.
    let cells: [String?]

    init(columns: [String], cells: [String?]) {
        self.columns = columns
        self.cells = cells
    }

    /// The index of `column`, or nil; a linear scan beats hashing for the handful of columns a query returns.
    func index(of column: String) -> Int? {
        columns.firstIndex(of: column)
    }
}
