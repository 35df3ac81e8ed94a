extension HTTPClient {
    /// How an `HTTPClient` uses connections and how much it accepts.
    public struct Configuration: Sendable {
        /// Most connections open to one host at once; further requests wait for one (default 16).
        public var maxConnectionsPerHost: Int
        /// Largest response accepted, headers and body together, in bytes (default 1 MiB).
        public var maxResponseSize: Int
        /// The `User-Agent` header sent unless the request sets one (default `social-login/1`).
        public var userAgent: String

        /// Creates a configuration; every argument has the documented default.
        public init(maxConnectionsPerHost: Int = 16, maxResponseSize: Int = 1 << 20, userAgent: String = "social-login/1") {
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxResponseSize = maxResponseSize
            self.userAgent = userAgent
        }
    }
}
