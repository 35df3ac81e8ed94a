import Runtime

/// The limits the events stream is created with (`EVENTS_MAX_AGE`, `EVENTS_REPLICAS`).
public struct EventStreamSettings: Sendable, Equatable {
    /// How long an event is kept. It must outlast the longest access-token lifetime: the gateway reads the
    /// ended sessions of the last day back from the stream. Default 7 days.
    public var maxAge: Duration = .seconds(604_800)
    /// Copies kept by a NATS cluster (1 to 5; 3 in a 3-node cluster). Default 1.
    public var replicas: Int = 1

    /// The defaults.
    public init() {}
}

extension EnvironmentReader {
    /// The shortest `EVENTS_MAX_AGE`: a gateway reads ended sessions a day plus its clock skew (at most
    /// 10 minutes) back.
    public static let minimumEventsMaxAge = 87_000

    /// `EVENTS_MAX_AGE` (seconds, at least ``minimumEventsMaxAge``) and `EVENTS_REPLICAS` (1 to 5).
    public func eventStream() throws(ConfigurationError) -> EventStreamSettings {
        var settings = EventStreamSettings()
        settings.maxAge = try seconds("EVENTS_MAX_AGE", default: settings.maxAge, in: Self.minimumEventsMaxAge...315_360_000)
        settings.replicas = try int("EVENTS_REPLICAS", default: settings.replicas, in: 1...5)
        return settings
    }
}
