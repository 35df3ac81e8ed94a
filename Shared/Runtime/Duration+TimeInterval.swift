import Foundation

extension Duration {
    /// The duration in seconds, as Foundation counts time (for rates, metrics, dates).
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
