import Foundation

/// The configuration reference, `docs/configuration.md`, read for the tests that hold the code and the
/// deployment files to it: every
/// variable is one row of a Markdown table whose first cell is its name in backticks and whose
/// second cell lists the services that read it, comma-separated
/// (`| \`GATEWAY_PORT\` | gateway | \`8080\` | ... |`). Rows whose second cell names scripts
/// instead (like `deploy/local/up`) are script variables.
public struct ConfigurationReference: Sendable {
    /// The services a configuration row may name.
    public static let services: Set<String> = ["gateway", "token-verifier", "member-service", "token-issuer", "admin-api", "webhook-relay",
                                               "dev-idp"]

    /// One variable row.
    public struct Row: Equatable, Sendable {
        public let name: String
        /// The second cell's entries, trimmed, without backticks.
        public let readers: [String]
        /// The third cell (the default), trimmed; empty when the row has no third cell.
        public let defaultCell: String
        /// Every cell of the row, trimmed.
        public let cells: [String]
    }

    /// Every variable row, in the order of the file.
    public let rows: [Row]

    /// Parses the text of the reference.
    public init(markdown: String) {
        var rows: [Row] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let cells = Self.cells(of: Self.trimmed(line))
            guard cells.count >= 2, let name = Self.variableName(cells[0]) else { continue }
            let readers = cells[1].split(separator: ",")
                .map { Self.trimmed($0, alsoTrimming: "`") }
                .filter { !$0.isEmpty }
            rows.append(Row(name: name, readers: readers, defaultCell: cells.count > 2 ? cells[2] : "", cells: cells))
        }
        self.rows = rows
    }

    /// `docs/configuration.md` of the repository, read and parsed once per process (each parse kept one
    /// of Swift's two cooperative threads for a good part of a second in a debug build, once per test case).
    public static func load() throws -> ConfigurationReference {
        try loaded.get()
    }

    private static let loaded = Result {
        ConfigurationReference(markdown: try String(contentsOf: repositoryRoot.appendingPathComponent("docs/configuration.md"), encoding: .utf8))
    }

    /// The repository's root (this file is `Tests/TestSupport/ConfigurationReference.swift`).
    public static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The variables the reference says `service` reads.
    public func variables(readBy service: String) -> Set<String> {
        Set(serviceRows.filter { $0.readers.contains(service) }.map(\.name))
    }

    /// Rows read by services: every reader is one of `services`.
    public var serviceRows: [Row] {
        rows.filter { !$0.readers.isEmpty && $0.readers.allSatisfy(Self.services.contains) }
    }

    /// Rows read by scripts: no reader is a service.
    public var scriptRows: [Row] {
        rows.filter { !$0.readers.isEmpty && !$0.readers.contains(where: Self.services.contains) }
    }

    /// Rows that mix services with other readers, or name none: neither kind, so a mistake.
    public var unclearRows: [Row] {
        rows.filter { row in row.readers.isEmpty
            || (row.readers.contains(where: Self.services.contains) && !row.readers.allSatisfy(Self.services.contains)) }
    }

    /// The default a row gives as one value in backticks (`` `60` ``), or nil when the cell says
    /// something else (prose, several values, "none").
    public static func singleValue(_ cell: String) -> String? {
        guard cell.count >= 2, cell.hasPrefix("`"), cell.hasSuffix("`") else { return nil }
        let inner = cell.dropFirst().dropLast()
        return inner.contains("`") ? nil : String(inner)
    }

    /// The cells of a table row (`| a | b |` → ["a", "b"]); `\|` stays inside its cell. Empty for
    /// a line that is not a table row.
    public static func cells(of line: String) -> [String] {
        guard line.hasPrefix("|") else { return [] }
        var cells: [String] = []
        var current = ""
        var escaped = false
        for character in line.dropFirst() {
            if escaped {
                current.append(character == "|" ? "|" : "\\\(character)")
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(Self.trimmed(current))
                current = ""
            } else {
                current.append(character)
            }
        }
        // Text after the last `|` is not a cell (a row may also lack its closing `|`).
        let rest = Self.trimmed(current)
        if !rest.isEmpty { cells.append(rest) }
        return cells
    }

    /// `text` without the spaces and tabs (and `extra`) at either end.
    static func trimmed(_ text: some StringProtocol, alsoTrimming extra: Character? = nil) -> String {
        let trims: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == extra }
        guard let first = text.firstIndex(where: { !trims($0) }), let last = text.lastIndex(where: { !trims($0) }) else { return "" }
        return String(text[first...last])
    }

    /// `NAME` for a cell that is exactly a variable name in backticks (capitals, digits, `_`).
    public static func variableName(_ cell: String) -> String? {
        guard let name = singleValue(cell), let first = name.unicodeScalars.first, ("A"..."Z").contains(first),
              name.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) else { return nil }
        return name
    }
}
