import Foundation

extension NATSConnection {
    /// How to reach the NATS servers and how the connection behaves when they go away.
    public struct Configuration: Sendable {
        /// Server URL, or a comma-separated list of them (`nats://a:4222,nats://b:4222`).
        public var url: String
        /// The connection name shown by the server's monitoring (`/connz`); use the service name.
        public var name: String
        /// Time between reconnect attempts to the same server.
        public var reconnectWait: Duration
        /// Reconnect attempts per server before giving up; -1 (the default) retries forever.
        public var maxReconnect: Int
        /// How often the client pings the server to detect a dead connection.
        public var pingInterval: Duration
        /// Unanswered pings after which the connection counts as dead.
        public var maxPingsOut: Int
        /// Time allowed for the TCP connect and handshake to one server.
        public var connectTimeout: Duration
        /// Messages a subscription holds unread before its delivery thread waits for the consumer.
        public var subscriptionBufferSize: Int
        /// Messages the library queues per subscription beyond that before dropping (slow consumer).
        public var pendingMessageLimit: Int
        /// Bytes the library queues per subscription beyond that before dropping (slow consumer).
        public var pendingByteLimit: Int
        /// Time `drainAndClose` allows subscriptions to finish their queued messages.
        public var drainTimeout: Duration

        /// Creates a configuration; every setting but the URL and name has a production default.
        public init(
            url: String = "nats://127.0.0.1:4222",
            name: String,
            reconnectWait: Duration = .milliseconds(250),
            maxReconnect: Int = -1,
            pingInterval: Duration = .seconds(20),
            maxPingsOut: Int = 2,
            connectTimeout: Duration = .seconds(2),
            subscriptionBufferSize: Int = 256,
            pendingMessageLimit: Int = 65_536,
            pendingByteLimit: Int = 64 * 1024 * 1024,
            drainTimeout: Duration = .seconds(5)
        ) {
            self.url = url
            self.name = name
            self.reconnectWait = reconnectWait
            self.maxReconnect = maxReconnect
            self.pingInterval = pingInterval
            self.maxPingsOut = maxPingsOut
            self.connectTimeout = connectTimeout
            self.subscriptionBufferSize = subscriptionBufferSize
            self.pendingMessageLimit = pendingMessageLimit
            self.pendingByteLimit = pendingByteLimit
            self.drainTimeout = drainTimeout
        }

        /// The server URLs, split at commas and trimmed.
        var servers: [String] {
            url.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }
}
