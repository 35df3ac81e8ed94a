extension HTTPClient {
    /// How an `HTTPClient` uses connections, how much it accepts and where it may connect.
    public struct Configuration: Sendable {
        /// Most connections open to one host at once; further requests wait for one (default 16).
        public var maxConnectionsPerHost: Int
        /// Largest response accepted, headers and body together, in bytes (default 1 MiB).
        public var maxResponseSize: Int
        /// The `User-Agent` header sent unless the request sets one (default `social-login/1`).
        public var userAgent: String
        /// Which addresses the client may connect to (default `.any`; `.publicOnly` for URLs others configure).
        public var destinations: DestinationPolicy

        /// Creates a configuration; every argument has the documented default.
        public init(maxConnectionsPerHost: Int = 16, maxResponseSize: Int = 1 << 20, userAgent: String = "social-login/1",
                    destinations: DestinationPolicy = .any) {
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxResponseSize = maxResponseSize
            self.userAgent = userAgent
            self.destinations = destinations
        }
    }
}
