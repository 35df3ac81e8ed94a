extension Duration {
    /// The duration in whole nanoseconds, as Dispatch's uptime clock counts them: 0 for a negative one,
    /// and saturating far in the future for one too long to count.
    var dispatchNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (scaled, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max / 2 : scaled &+ UInt64(attoseconds / 1_000_000_000)
    }
}
