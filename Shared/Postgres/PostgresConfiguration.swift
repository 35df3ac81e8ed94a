/// Where and how to connect to PostgreSQL, and how large the connection pool is.
public struct PostgresConfiguration: Sendable {
    /// How the connection negotiates TLS (libpq's `sslmode`).
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Never use TLS.
        case disable
        /// Try without TLS first, then with it.
        case allow
        /// Try TLS first, then without it (libpq's default).
        case prefer
        /// Require TLS without verifying the certificate.
        case require
        /// Require TLS and a certificate signed by a trusted CA.
        case verifyCA = "verify-ca"
        /// Require TLS, a trusted certificate, and a matching host name.
        case verifyFull = "verify-full"
    }

    /// Host name, IP address, or a directory holding the server's Unix socket.
    public var host: String
    /// TCP port (default 5432).
    public var port: Int
    /// Role to log in as.
    public var user: String
    /// Password, or nil for trust / peer authentication. Never logged.
    public var password: String?
    /// Database name (defaults to the user name in `init(url:)`).
    public var database: String
    /// TLS mode (default `.prefer`, libpq's default).
    public var tlsMode: TLSMode
    /// Maximum number of connections the pool opens (default 8).
    public var poolSize: Int = 8
    /// Longest wait to open one connection; libpq rounds it up to whole seconds, at least 2 (default 5 s).
    public var connectTimeout: Duration = .seconds(5)
    /// Longest wait for a free pooled connection before failing with `.poolTimeout` (default 10 s).
    public var poolTimeout: Duration = .seconds(10)
    /// After a failed connection attempt, calls fail fast with `.unavailable` for this long (default 250 ms).
    public var reconnectBackoff: Duration = .milliseconds(250)
    /// Reported to the server as `application_name` (shown in `pg_stat_activity`).
    public var applicationName: String?

    /// Creates a configuration from its parts.
    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String,
                tlsMode: TLSMode = .prefer, applicationName: String? = nil) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tlsMode = tlsMode
        self.applicationName = applicationName
    }
}

extension PostgresConfiguration: CustomStringConvertible {
    /// The connection target without the password, suitable for logs.
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)?sslmode=\(tlsMode.rawValue) (pool \(poolSize))"
    }
}
