import Foundation

extension Duration {
    /// The duration in seconds, as Foundation counts time (for rates, metrics, dates).
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

extension Duration {
    /// The duration in milliseconds with one decimal (`12.3`, `-0.5`), truncated toward zero, for log
    /// lines; no Foundation formatting.
    public var millisecondsText: String {
        let (seconds, attoseconds) = components
        // Tenths of a millisecond; both components carry the duration's sign.
        let tenths = seconds.multipliedReportingOverflow(by: 10_000)
        guard !tenths.overflow else { return "\(seconds)000.0" }
        let total = tenths.partialValue + attoseconds / 100_000_000_000_000
        return (total < 0 ? "-" : "") + "\(abs(total) / 10).\(abs(total) % 10)"
    }
}
