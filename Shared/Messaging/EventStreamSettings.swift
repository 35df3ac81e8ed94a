import Runtime

/// The limits the events stream is created with (`EVENTS_MAX_AGE`, `EVENTS_REPLICAS`).
public struct EventStreamSettings: Sendable, Equatable {
    /// How long an event is kept. It must outlast the longest access-token lifetime: the gateway reads the
    /// ended sessions of the last day back from the stream. Default 7 days.
    public var maxAge: Duration = .seconds(604_800)
    /// Copies kept by a NATS cluster (1 to 5; 3 in a 3-node cluster). Default 1.
    public var replicas: Int = 1

    /// The defaults.
    public init(maxAge: Duration = .seconds(604_800), replicas: Int = 1) {
        self.maxAge = maxAge
        self.replicas = replicas
    }
}

extension EnvironmentReader {
    /// `EVENTS_MAX_AGE` (seconds, at least one day) and `EVENTS_REPLICAS` (1 to 5).
    public func eventStream() throws(ConfigurationError) -> EventStreamSettings {
        EventStreamSettings(maxAge: try seconds("EVENTS_MAX_AGE", default: 604_800, in: 86_400...315_360_000),
                            replicas: try int("EVENTS_REPLICAS", default: 1, in: 1...5))
    }
}
