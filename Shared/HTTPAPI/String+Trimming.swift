extension String {
    /// The text without leading and trailing spaces and tabs. Cheaper than Foundation's
    /// `trimmingCharacters(in:)`, which bridges through NSString, on a per-request path.
    public func trimmingASCIISpaces() -> String {
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs (see `String.trimmingASCIISpaces()`).
    public func trimmingASCIISpaces() -> String {
        String(self).trimmingASCIISpaces()
    }
}
