import Runtime

/// Where a service serves `/metrics`, `/healthz` and `/readyz` (`MANAGEMENT_HOST`, `MANAGEMENT_PORT`).
public struct ManagementConfiguration: Sendable, Equatable {
    /// The address to listen on. Default `0.0.0.0`: probes and scrapers come from outside the container.
    public var host: String = "0.0.0.0"
    /// The port; nil serves nothing, 0 picks a free one.
    public var port: Int?

    /// Off unless a port is given.
    public init(host: String = "0.0.0.0", port: Int? = nil) {
        self.host = host
        self.port = port
    }
}

extension EnvironmentReader {
    /// `MANAGEMENT_HOST` and `MANAGEMENT_PORT`; `defaultPort` nil leaves the management port off unless set.
    public func management(defaultPort: Int?) throws(ConfigurationError) -> ManagementConfiguration {
        let host = string("MANAGEMENT_HOST", default: "0.0.0.0")
        let port: Int? = optional("MANAGEMENT_PORT") == nil ? defaultPort : try int("MANAGEMENT_PORT", default: 0, in: 1...65535)
        return ManagementConfiguration(host: host, port: port)
    }
}
