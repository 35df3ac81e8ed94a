/// A failure of the PostgreSQL client: a connection problem, a server error, or a value that could not be decoded.
///
/// Compare with the static members (`error == .poolTimeout`); two errors are equal when their kind and SQLSTATE match.
/// The description never contains parameter values or the password.
public struct PostgresError: Error, CustomStringConvertible, Sendable, Equatable {
    private enum Code: Sendable {
        case connectionFailed, connectionLost, unavailable, query, decoding, poolTimeout
        case closed, invalidConfiguration, migration, connectionReleased, invalidParameter
    }

    private let code: Code
    /// The five-character SQLSTATE the server reported, for server errors.
    public let sqlState: String?
    private let detail: String

    private init(_ code: Code, sqlState: String? = nil, detail: String = "") {
        self.code = code
        self.sqlState = sqlState
        self.detail = detail
    }

    /// A connection could not be opened (server down, refused, bad credentials); `reason` is libpq's message.
    public static func connectionFailed(_ reason: String) -> PostgresError { PostgresError(.connectionFailed, detail: reason) }
    /// A connection could not be opened; compare against this member to test for the kind.
    public static let connectionFailed = PostgresError(.connectionFailed)
    /// The server went away while the connection was in use (restart, network failure, terminated backend).
    public static func connectionLost(_ reason: String) -> PostgresError { PostgresError(.connectionLost, detail: reason) }
    /// The server went away while the connection was in use; compare against this member to test for the kind.
    public static let connectionLost = PostgresError(.connectionLost)
    /// No connection can be made now: a recent attempt failed, so the client fails fast instead of retrying at once.
    public static let unavailable = PostgresError(.unavailable)
    /// No pooled connection became free within the configured `poolTimeout`.
    public static let poolTimeout = PostgresError(.poolTimeout)
    /// The client was closed.
    public static let closed = PostgresError(.closed)
    /// A `PostgresConnection` was used after its `withConnection` scope ended.
    public static let connectionReleased = PostgresError(.connectionReleased)

    /// The server rejected a statement with `sqlState` and its primary `message`.
    public static func query(sqlState: String, message: String) -> PostgresError {
        PostgresError(.query, sqlState: sqlState, detail: message)
    }

    /// A column's value could not be read as the requested type (or the column does not exist).
    public static func decoding(column: String, reason: String) -> PostgresError {
        PostgresError(.decoding, detail: "column '\(column)': \(reason)")
    }

    /// The configuration (usually the database URL) is invalid; `reason` names what is wrong.
    public static func invalidConfiguration(_ reason: String) -> PostgresError {
        PostgresError(.invalidConfiguration, detail: reason)
    }

    /// A parameter cannot be sent (for example text containing a NUL character); `reason` never quotes the value.
    public static func invalidParameter(_ reason: String) -> PostgresError { PostgresError(.invalidParameter, detail: reason) }

    /// A migration could not be applied or conflicts with the recorded history.
    public static func migration(_ reason: String) -> PostgresError { PostgresError(.migration, detail: reason) }

    /// True for SQLSTATE 23505, a unique constraint violation.
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// True when the database cannot be reached or the connection failed: the caller maps it to 503.
    public var isUnavailable: Bool {
        switch code {
        case .connectionFailed, .connectionLost, .unavailable, .poolTimeout, .closed:
            return true
        case .query:
            // Class 08 is "connection exception"; 57P01–57P03 are shutdown or start-up of the server.
            guard let sqlState else { return false }
            return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
        case .decoding, .invalidConfiguration, .migration, .connectionReleased, .invalidParameter:
            return false
        }
    }

    /// Equal when the kind and the SQLSTATE match; messages are not compared.
    public static func == (lhs: PostgresError, rhs: PostgresError) -> Bool {
        lhs.code == rhs.code && lhs.sqlState == rhs.sqlState
    }

    /// A readable description without parameter values or secrets.
    public var description: String {
        switch code {
        case .connectionFailed: return "PostgreSQL connection failed" + suffix
        case .connectionLost: return "PostgreSQL connection lost" + suffix
        case .unavailable: return "PostgreSQL is unavailable (a recent connection attempt failed)"
        case .poolTimeout: return "timed out waiting for a PostgreSQL connection from the pool"
        case .closed: return "the PostgreSQL client is closed"
        case .connectionReleased: return "a PostgreSQL connection was used outside its withConnection scope"
        case .decoding: return "cannot decode PostgreSQL value: \(detail)"
        case .invalidConfiguration: return "invalid PostgreSQL configuration: \(detail)"
        case .invalidParameter: return "invalid PostgreSQL parameter: \(detail)"
        case .migration: return "PostgreSQL migration failed: \(detail)"
        case .query:
            let state = sqlState ?? "?????"
            // Data exceptions (class 22) quote the offending input, which may be a parameter value.
            if state.hasPrefix("22") {
                return "PostgreSQL error \(state) (data exception; message withheld as it may quote a parameter)"
            }
            return "PostgreSQL error \(state): \(detail)"
        }
    }

    private var suffix: String { detail.isEmpty ? "" : ": \(detail)" }
}
