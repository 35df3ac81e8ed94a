import CNats

/// An error from the NATS client: a stable ``code`` to switch on, plus details for logs.
///
/// Two errors are equal when their codes (and JetStream error codes) are equal; the detail text is not compared.
public struct NATSError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, as a stable value that callers can compare (`error.code == .timeout`).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case noResponders, timeout, notConnected, connectionLost, connectionFailed, connectionClosed
            case jetStream, invalidSubject, invalidArgument, noReplySubject, protocolError
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// Nobody subscribes to the request's subject (the server answered with status 503).
        public static let noResponders = Code(.noResponders)
        /// No answer arrived in time.
        public static let timeout = Code(.timeout)
        /// The connection is down (reconnecting); the call failed fast instead of waiting, and nothing was sent.
        public static let notConnected = Code(.notConnected)
        /// The connection went down after the request was handed over (sent, or queued in cnats's reconnect
        /// buffer, which it sends once connected again): it may have been handled, but its reply is lost.
        public static let connectionLost = Code(.connectionLost)
        /// The first connection to the server could not be made.
        public static let connectionFailed = Code(.connectionFailed)
        /// The connection was closed (drained, or it gave up reconnecting).
        public static let connectionClosed = Code(.connectionClosed)
        /// The JetStream API refused the call; see ``NATSError/jetStreamErrorCode``.
        public static let jetStream = Code(.jetStream)
        /// A subject, queue group or stream name is malformed (empty token, whitespace, wildcard where not allowed).
        public static let invalidSubject = Code(.invalidSubject)
        /// An argument is out of range (a negative timeout, an oversized payload).
        public static let invalidArgument = Code(.invalidArgument)
        /// `respond(to:)` was given a message that has no reply subject, or one that is not an inbox.
        public static let noReplySubject = Code(.noReplySubject)
        /// Any other failure reported by the NATS library or server.
        public static let protocolError = Code(.protocolError)

        /// The code's name, as written in logs.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The JetStream API error code (`err_code`, e.g. 10059 "stream not found"), when the server sent one.
    public let jetStreamErrorCode: Int?
    /// Human-readable context for logs; never contains payloads or credentials.
    public let detail: String?

    /// Creates an error with a code and optional detail.
    public init(code: Code, detail: String? = nil, jetStreamErrorCode: Int? = nil) {
        self.code = code
        self.detail = detail
        self.jetStreamErrorCode = jetStreamErrorCode
    }

    /// Nobody subscribes to the request's subject.
    public static let noResponders = NATSError(code: .noResponders)
    /// No answer arrived in time.
    public static let timeout = NATSError(code: .timeout)
    /// The connection is down (reconnecting); nothing was sent.
    public static let notConnected = NATSError(code: .notConnected)
    /// The connection went down after the request was handed over; it may have been handled.
    public static let connectionLost = NATSError(code: .connectionLost)
    /// The first connection to the server could not be made.
    public static let connectionFailed = NATSError(code: .connectionFailed)
    /// The connection was closed.
    public static let connectionClosed = NATSError(code: .connectionClosed)
    /// A subject or name is malformed.
    public static let invalidSubject = NATSError(code: .invalidSubject)
    /// An argument is out of range.
    public static let invalidArgument = NATSError(code: .invalidArgument)
    /// The message to answer has no reply subject.
    public static let noReplySubject = NATSError(code: .noReplySubject)

    /// A JetStream API error with the server's `err_code` (nil when the server sent none).
    public static func jetStream(_ errorCode: Int? = nil, detail: String? = nil) -> NATSError {
        NATSError(code: .jetStream, detail: detail, jetStreamErrorCode: errorCode)
    }

    /// The code, JetStream error code and detail, for logs.
    public var description: String {
        var text = "NATSError.\(code)"
        if let jetStreamErrorCode { text += " (err_code \(jetStreamErrorCode))" }
        if let detail { text += ": \(detail)" }
        return text
    }

    /// Equal when code and JetStream error code match; the detail text is ignored.
    public static func == (lhs: NATSError, rhs: NATSError) -> Bool {
        lhs.code == rhs.code && lhs.jetStreamErrorCode == rhs.jetStreamErrorCode
    }
}
