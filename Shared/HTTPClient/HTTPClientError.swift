/// Why an outbound HTTP request failed; HTTP error statuses are not errors.
///
/// Compare with the static members (`error == .timeout`). The description never includes the
/// request's body, headers or URL query, only what went wrong.
public struct HTTPClientError: Error, CustomStringConvertible, Sendable, Equatable {
    private enum Code: Sendable, Equatable {
        case timeout, connectionFailed, destinationRefused, responseTooLarge, invalidURL, invalidRequest, cancelled, transport
    }

    private let code: Code
    /// libcurl's `CURLcode` when libcurl reported the failure, otherwise nil.
    public let curlCode: Int?
    /// libcurl's explanation (its error buffer), when it gave one; for `.destinationRefused`, the addresses
    /// refused and why ("127.0.0.1 is loopback").
    public let detail: String?

    private init(_ code: Code, curlCode: Int? = nil, detail: String? = nil) {
        self.code = code
        self.curlCode = curlCode
        self.detail = detail
    }

    /// The request did not finish within its `timeout`.
    public static let timeout = HTTPClientError(.timeout)
    /// No connection could be made: refused, name not resolved, or TLS handshake or verification failed.
    public static let connectionFailed = HTTPClientError(.connectionFailed)
    /// The `DestinationPolicy` refused an address the host resolved to (`.publicOnly` and, say, a loopback or
    /// private address) and no other address could be connected to; `detail` names each address refused and why.
    public static let destinationRefused = HTTPClientError(.destinationRefused)
    /// The response was larger than `Configuration.maxResponseSize`.
    public static let responseTooLarge = HTTPClientError(.responseTooLarge)
    /// The URL is malformed or its scheme is not `http` or `https`.
    public static let invalidURL = HTTPClientError(.invalidURL)
    /// The method or a header is not valid HTTP (for instance a line break in a header value).
    public static let invalidRequest = HTTPClientError(.invalidRequest)
    /// The caller's task was cancelled, or the client was shut down before the request finished.
    public static let cancelled = HTTPClientError(.cancelled)

    /// Any other libcurl failure, with its `CURLcode` and message.
    public static func transport(_ code: Int, _ message: String) -> HTTPClientError {
        HTTPClientError(.transport, curlCode: code, detail: message)
    }

    /// True when the request failed because its deadline passed.
    public var isTimeout: Bool { code == .timeout }

    /// True when no connection to the server could be made.
    public var isConnectionFailure: Bool { code == .connectionFailed }

    /// A copy carrying an explanation of our own, with no libcurl code.
    func with(detail: String) -> HTTPClientError {
        HTTPClientError(code, detail: detail)
    }

    /// A copy carrying libcurl's code and message.
    func with(curlCode: Int, detail: String?) -> HTTPClientError {
        HTTPClientError(code, curlCode: curlCode, detail: detail)
    }

    /// Errors are equal when they are the same kind (and, for transport errors, the same libcurl code).
    public static func == (lhs: HTTPClientError, rhs: HTTPClientError) -> Bool {
        lhs.code == rhs.code && (lhs.code != .transport || lhs.curlCode == rhs.curlCode)
    }

    /// A one-line explanation, with libcurl's code and message, or our own explanation, when there is one.
    public var description: String {
        let what = switch code {
        case .timeout: "request timed out"
        case .connectionFailed: "connection failed"
        case .destinationRefused: "destination refused"
        case .responseTooLarge: "response too large"
        case .invalidURL: "invalid URL"
        case .invalidRequest: "invalid request"
        case .cancelled: "request cancelled"
        case .transport: "transport error"
        }
        var text = "HTTPClientError: \(what)"
        if let curlCode {
            text += " (curl \(curlCode)" + (detail.map { ": \($0)" } ?? "") + ")"
        } else if let detail {
            text += ": \(detail)"
        }
        return text
    }
}
