extension ServiceDiscovery {
    /// The answer to `$SRV.PING` (`io.nats.micro.v1.ping_response`).
    public struct PingResponse: Codable, Sendable, Equatable {
        /// The schema type.
        public var type = "io.nats.micro.v1.ping_response"
        /// The service's name, shared by its replicas.
        public var name: String
        /// The replica's ID.
        public var id: String
        /// The service's version.
        public var version: String
        /// Free-form key/value pairs.
        public var metadata: [String: String]?
    }

    /// The answer to `$SRV.INFO` (`io.nats.micro.v1.info_response`).
    public struct InfoResponse: Codable, Sendable, Equatable {
        /// The schema type.
        public var type = "io.nats.micro.v1.info_response"
        /// The service's name, shared by its replicas.
        public var name: String
        /// The replica's ID.
        public var id: String
        /// The service's version.
        public var version: String
        /// Free-form key/value pairs.
        public var metadata: [String: String]?
        /// What the service does.
        public var description: String
        /// The endpoints it serves.
        public var endpoints: [EndpointInfo]
    }

    /// One endpoint in `$SRV.INFO`.
    public struct EndpointInfo: Codable, Sendable, Equatable {
        /// The endpoint's name (the last token of its subject).
        public var name: String
        /// The subject it serves.
        public var subject: String
        /// The queue group its replicas share.
        public var queueGroup: String
        /// Free-form key/value pairs.
        public var metadata: [String: String]?

        enum CodingKeys: String, CodingKey {
            case name, subject, metadata
            case queueGroup = "queue_group"
        }
    }

    /// The answer to `$SRV.STATS` (`io.nats.micro.v1.stats_response`).
    public struct StatsResponse: Codable, Sendable, Equatable {
        /// The schema type.
        public var type = "io.nats.micro.v1.stats_response"
        /// The service's name, shared by its replicas.
        public var name: String
        /// The replica's ID.
        public var id: String
        /// The service's version.
        public var version: String
        /// Free-form key/value pairs.
        public var metadata: [String: String]?
        /// When the replica started (RFC 3339, UTC).
        public var started: String
        /// Each endpoint's counts.
        public var endpoints: [EndpointStats]
    }

    /// One endpoint's counts in `$SRV.STATS`; times in nanoseconds, as the protocol has them.
    public struct EndpointStats: Codable, Sendable, Equatable {
        /// The endpoint's name (the last token of its subject).
        public var name: String
        /// The subject it serves.
        public var subject: String
        /// The queue group its replicas share.
        public var queueGroup: String
        /// Requests handled since start.
        public var numRequests: Int
        /// Requests answered with a failure since start.
        public var numErrors: Int
        /// The last failure (`CODE: message`), or empty.
        public var lastError: String
        /// Total time spent handling requests, in nanoseconds.
        public var processingTime: Int64
        /// `processingTime / numRequests`, in nanoseconds.
        public var averageProcessingTime: Int64
        /// This service's own counts (the micro protocol's `data`).
        public var data: EndpointData?

        enum CodingKeys: String, CodingKey {
            case name, subject
            case queueGroup = "queue_group"
            case numRequests = "num_requests"
            case numErrors = "num_errors"
            case lastError = "last_error"
            case processingTime = "processing_time"
            case averageProcessingTime = "average_processing_time"
            case data
        }
    }

    /// An endpoint's counts beyond the micro protocol's own.
    public struct EndpointData: Codable, Sendable, Equatable {
        /// Requests dropped unread since start: their reply subject was no inbox.
        public var droppedRequests: Int

        /// Creates the counts.
        public init(droppedRequests: Int) {
            self.droppedRequests = droppedRequests
        }

        enum CodingKeys: String, CodingKey {
            case droppedRequests = "dropped_requests"
        }
    }
}
