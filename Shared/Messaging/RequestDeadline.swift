/// How long the caller of a request still waits for its answer, carried from hop to hop: the
/// ``header`` says it in milliseconds (relative, so no clocks need agree), a ``Responder`` makes it the
/// task's ``current`` deadline while the handler runs, and a ``ServiceClient`` call made then waits no
/// longer than that and sends what is left on. A request whose caller has given up is not handled: a
/// late login would otherwise start a session after the retry that replaced it.
public enum RequestDeadline {
    /// The NATS header with the caller's remaining patience, in whole milliseconds.
    public static let header = "X-Timeout-Ms"
    /// The longest patience a header may claim.
    static let longest: Duration = .seconds(120)

    /// When the caller of the request the current task works for stops waiting, if it said.
    @TaskLocal public static var current: ContinuousClock.Instant?

    /// The deadline a request's `header` value gives, counted from `received`; nil when absent or not a
    /// whole number of milliseconds from 1 to 120,000.
    static func from(_ value: String?, received: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard let value, value.utf8.count <= 6, let milliseconds = Int64(value), milliseconds > 0 else { return nil }
        return received + min(.milliseconds(milliseconds), longest)
    }

    /// The header value for waiting `timeout` more.
    static func value(_ timeout: Duration) -> String {
        let clamped = min(timeout, longest)
        return String(max(1, clamped.components.seconds * 1_000 + clamped.components.attoseconds / 1_000_000_000_000_000))
    }
}
