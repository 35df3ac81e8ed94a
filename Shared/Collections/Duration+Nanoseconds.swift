extension Duration {
    /// The duration in whole nanoseconds, saturating at `Int64`'s bounds: the unit of cnats, JetStream
    /// configuration and Dispatch's uptime clock.
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if sumOverflow { return seconds < 0 ? .min : .max }
        return total
    }

    /// The duration in whole milliseconds (saturating), the unit of most cnats options.
    public var milliseconds: Int64 { nanoseconds / 1_000_000 }
}
