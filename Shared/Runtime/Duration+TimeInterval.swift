import Foundation

extension Duration {
    /// The duration in seconds, as Foundation counts time (for rates, metrics, dates).
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

extension Duration {
    /// The duration in milliseconds with one decimal (`12.3`), for log lines; no Foundation formatting.
    public var milliseconds: String {
        let (seconds, attoseconds) = components
        let tenths = seconds * 10_000 + attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
