/// The exchange with the server failed below the API: no connection, a timeout, or an answer
/// that is not the API's JSON. Distinct from `APIError`, where the server said no.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable {
        case network
        case invalidResponse
    }

    private let code: Code
    /// What happened, for logs (it never holds a token).
    public let message: String
    /// The underlying error (a `URLError`, a `DecodingError`), when there is one.
    public let underlying: (any Error)?

    private init(_ code: Code, _ message: String, underlying: (any Error)?) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The request did not complete: offline, refused, timed out, cancelled.
    public static func network(_ underlying: any Error) -> TransportError {
        TransportError(.network, "The request did not complete: \(underlying)", underlying: underlying)
    }

    /// The server answered, but not with what the API promises.
    public static func invalidResponse(_ message: String, underlying: (any Error)? = nil) -> TransportError {
        TransportError(.invalidResponse, message, underlying: underlying)
    }

    /// True for a request that did not complete (worth retrying later).
    public var isNetworkFailure: Bool { code == .network }

    /// True for an answer that is not the API's.
    public var isInvalidResponse: Bool { code == .invalidResponse }

    public var description: String { message }
}
