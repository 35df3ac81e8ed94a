import Logging

/// The one "try again until it answers" loop: a service that starts before NATS, PostgreSQL or a
/// JetStream leader waits for it instead of exiting.
public enum Retry {
    /// Runs `attempt` until it returns, waiting `interval` after each failure that `isUnavailable` says
    /// is the other side not answering yet (`{ _ in true }`: every failure); any other error is thrown. The first such failure is logged
    /// once, as `warning` with `fields` and the error. Cancelled, it throws `CancellationError`.
    public static func untilAvailable<T>(every interval: Duration = .seconds(1), logger: Logger, warning: String,
                                         fields: [String: String] = [:],
                                         isUnavailable: (any Error) -> Bool,
                                         _ attempt: () async throws -> T) async throws -> T {
        var warned = false
        while true {
            try Task.checkCancellation()
            do {
                return try await attempt()
            } catch {
                guard !(error is CancellationError), isUnavailable(error) else { throw error }
                if !warned {
                    logger.warning(warning, fields.merging(["error": String(describing: error)]) { $1 })
                    warned = true
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
