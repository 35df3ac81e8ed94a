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
        /// How often the client pings the server to detect a dead connection: one whose server vanished
        /// without closing it (a host lost, a network split) counts as lost after `maxPingsOut` of them
        /// went unanswered, 10 to 15 s with the defaults, and the client moves to another server.
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
        /// Who this client is to the server: its nkey, its inbox prefix, TLS (SPEC section 9).
        public var access: Access

        /// Creates a configuration; every setting but the URL and name has a production default.
        public init(
            url: String = "nats://127.0.0.1:4222",
            name: String,
            reconnectWait: Duration = .milliseconds(250),
            maxReconnect: Int = -1,
            pingInterval: Duration = .seconds(5),
            maxPingsOut: Int = 2,
            connectTimeout: Duration = .seconds(2),
            subscriptionBufferSize: Int = 256,
            pendingMessageLimit: Int = 65_536,
            pendingByteLimit: Int = 64 * 1024 * 1024,
            drainTimeout: Duration = .seconds(5),
            access: Access = Access()
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
            self.access = access
        }

        /// The server URLs, split at commas and trimmed.
        var servers: [String] {
            url.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }

    /// How a client proves who it is and keeps its replies to itself.
    public struct Access: Sendable, Equatable {
        /// The user nkey this client signs in with; nil connects without credentials.
        public var nkey: NKeyCredentials?
        /// Replies to this client's requests arrive on `<inboxPrefix>.<unique>.…`; the server lets only
        /// this identity subscribe there. No dots, wildcards or white space.
        public var inboxPrefix: String
        /// TLS when set: the CA that signed the server's certificate, and this client's own certificate
        /// and key when the server asks for one.
        public var tls: TLS?

        /// Creates an access; the defaults connect without credentials over plain TCP with `_INBOX`.
        public init(nkey: NKeyCredentials? = nil, inboxPrefix: String = "_INBOX", tls: TLS? = nil) {
            self.nkey = nkey
            self.inboxPrefix = inboxPrefix
            self.tls = tls
        }
    }

    /// A user nkey: its public key (`U…`) and the file holding its seed (`SU…`), which cnats reads
    /// at each connect to sign the server's nonce.
    public struct NKeyCredentials: Sendable, Equatable {
        /// The public key the server's configuration lists.
        public var publicKey: String
        /// The seed file (`NATS_NKEY_SEED_FILE`).
        public var seedFile: String

        /// Creates the credentials.
        public init(publicKey: String, seedFile: String) {
            self.publicKey = publicKey
            self.seedFile = seedFile
        }
    }

    /// The files of a TLS connection (PEM).
    public struct TLS: Sendable, Equatable {
        /// The CA certificates that may sign the server's certificate; nil trusts the system's.
        public var caFile: String?
        /// This client's certificate chain, for servers that verify clients.
        public var certificateFile: String?
        /// The private key of `certificateFile`.
        public var keyFile: String?

        /// Creates the settings.
        public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }
}
