extension HTTPServer {
    /// How the server listens and what it accepts; the defaults suit a gateway behind a load balancer.
    public struct Configuration: Sendable {
        /// The IPv4 or IPv6 address to listen on (`0.0.0.0` for all IPv4, `::` for IPv4 and IPv6).
        public var host: String = "0.0.0.0"
        /// The TCP port; 0 picks a free one (read it back from `HTTPServer.port`).
        public var port: Int = 8080
        /// The largest body handed to the handler; a larger one is discarded and marked `bodyTooLarge`.
        public var maxBodySize: Int = 65536
        /// The most connections open at once.
        public var connectionLimit: Int = 10_000
        /// The most connections open at once from one client address; 0 means no limit.
        public var perAddressConnectionLimit: Int = 0
        /// How long an idle or slow connection may stay open (whole seconds, rounded up); zero means forever.
        public var connectionTimeout: Duration = .seconds(30)
        /// How many threads poll sockets (epoll each); handlers themselves run on Swift's cooperative pool.
        public var threads: Int = 2
        /// Sets `SO_REUSEPORT`, so that several processes can listen on the same port.
        public var reusePort: Bool = false
        /// How long `run()` waits, once cancelled, for handlers still running before it aborts them.
        public var shutdownGracePeriod: Duration = .seconds(5)

        /// Creates a configuration; every value has a documented default.
        public init(host: String = "0.0.0.0", port: Int = 8080, maxBodySize: Int = 65536, connectionLimit: Int = 10_000,
                    perAddressConnectionLimit: Int = 0, connectionTimeout: Duration = .seconds(30), threads: Int = 2,
                    reusePort: Bool = false, shutdownGracePeriod: Duration = .seconds(5)) {
            self.host = host
            self.port = port
            self.maxBodySize = maxBodySize
            self.connectionLimit = connectionLimit
            self.perAddressConnectionLimit = perAddressConnectionLimit
            self.connectionTimeout = connectionTimeout
            self.threads = threads
            self.reusePort = reusePort
            self.shutdownGracePeriod = shutdownGracePeriod
        }

        /// Throws `invalidConfiguration` naming the first value out of range.
        func validate() throws(HTTPServerError) {
            guard (0...65535).contains(port) else { throw .invalidConfiguration("port \(port) is not in 0...65535") }
            guard maxBodySize >= 0 else { throw .invalidConfiguration("maxBodySize \(maxBodySize) is negative") }
            guard (1...Int(UInt32.max)).contains(connectionLimit) else {
                throw .invalidConfiguration("connectionLimit \(connectionLimit) must be positive")
            }
            guard (0...Int(UInt32.max)).contains(perAddressConnectionLimit) else {
                throw .invalidConfiguration("perAddressConnectionLimit \(perAddressConnectionLimit) is negative")
            }
            guard connectionTimeout >= .zero else { throw .invalidConfiguration("connectionTimeout is negative") }
            guard (1...1024).contains(threads) else { throw .invalidConfiguration("threads \(threads) is not in 1...1024") }
        }

        /// The connection timeout in whole seconds, rounded up, as MHD takes it.
        var timeoutSeconds: UInt32 {
            let (seconds, attoseconds) = connectionTimeout.components
            let rounded = seconds + (attoseconds > 0 ? 1 : 0)
            return UInt32(clamping: rounded)
        }
    }
}
