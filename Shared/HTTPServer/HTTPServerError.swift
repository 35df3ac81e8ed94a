/// Why the HTTP server could not start.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable, Equatable {
    private enum Code: Sendable, Equatable {
        case invalidHost(String)
        case invalidConfiguration(String)
        case bindFailed(host: String, port: Int)
        case startFailed
        case alreadyStarted
        case stopped
    }

    private let code: Code
    /// What libmicrohttpd said, when it said something (`Failed to bind to port 8080: Address already in use`).
    public let reason: String?

    private init(_ code: Code, reason: String? = nil) {
        self.code = code
        self.reason = reason
    }

    /// The configured host is not an IPv4 or IPv6 address.
    public static func invalidHost(_ host: String) -> HTTPServerError { HTTPServerError(.invalidHost(host)) }
    /// A configuration value is out of range (the message names it).
    public static func invalidConfiguration(_ message: String) -> HTTPServerError {
        HTTPServerError(.invalidConfiguration(message))
    }
    /// The listening socket could not be bound (the port is taken, or the address is not local).
    public static func bindFailed(host: String, port: Int, reason: String? = nil) -> HTTPServerError {
        HTTPServerError(.bindFailed(host: host, port: port), reason: reason)
    }
    /// libmicrohttpd refused to start for another reason (threads, epoll, limits).
    public static func startFailed(reason: String? = nil) -> HTTPServerError { HTTPServerError(.startFailed, reason: reason) }
    /// `start()` was called on a server that is already running.
    public static let alreadyStarted = HTTPServerError(.alreadyStarted)
    /// `start()` was called after `stop()`; a stopped server cannot be started again.
    public static let stopped = HTTPServerError(.stopped)

    /// Two errors are equal when they are the same kind for the same subject; `reason` is not compared.
    public static func == (lhs: HTTPServerError, rhs: HTTPServerError) -> Bool { lhs.code == rhs.code }

    /// A message for logs and people: what failed, and libmicrohttpd's reason when there is one.
    public var description: String {
        let text: String
        switch code {
        case .invalidHost(let host): text = "HTTP server host '\(host)' is not an IPv4 or IPv6 address"
        case .invalidConfiguration(let message): text = "HTTP server configuration: \(message)"
        case .bindFailed(let host, let port): text = "HTTP server could not bind \(host):\(port)"
        case .startFailed: text = "HTTP server could not start"
        case .alreadyStarted: text = "HTTP server is already started"
        case .stopped: text = "HTTP server was stopped and cannot start again"
        }
        guard let reason, !reason.isEmpty else { return text }
        return "\(text): \(reason)"
    }
}
