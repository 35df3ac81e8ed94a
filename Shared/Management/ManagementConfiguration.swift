import Runtime

/// Where a service serves `/metrics`, `/healthz` and `/readyz` (`MANAGEMENT_HOST`, `MANAGEMENT_PORT`).
public struct ManagementConfiguration: Sendable, Equatable {
    /// The address to listen on. Default `0.0.0.0`: probes and scrapers come from outside the container.
    public var host: String = "0.0.0.0"
    /// The port; nil serves nothing, 0 picks a free one.
    public var port: Int?

    /// On the default host; off unless a port is given.
    public init(port: Int? = nil) {
        self.port = port
    }

    /// On `host` and `port`.
    public init(host: String, port: Int?) {
        self.host = host
        self.port = port
    }
}

extension EnvironmentReader {
    /// `MANAGEMENT_HOST` and `MANAGEMENT_PORT`; `defaultPort` nil leaves the management port off unless set.
    public func management(defaultPort: Int?) throws(ConfigurationError) -> ManagementConfiguration {
        var management = ManagementConfiguration(port: defaultPort)
        management.host = string("MANAGEMENT_HOST", default: management.host)
        if optional("MANAGEMENT_PORT") != nil { management.port = try int("MANAGEMENT_PORT", default: 0, in: 1...65535) }
        return management
    }
}
