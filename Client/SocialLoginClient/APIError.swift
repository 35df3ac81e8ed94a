import Foundation

/// The server answered with an error: the code and message of its error envelope
/// (`{"error": {"code", "message"}}`), the HTTP status, and `Retry-After` when it sent one.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for code to switch on.
    public let code: APIErrorCode
    /// What the caller can fix, for people (never internal details).
    public let message: String
    /// The HTTP status.
    public let status: Int
    /// How long to wait before trying again (`Retry-After` of a 429 or 503), when sent.
    public let retryAfter: Duration?
    /// The response's `X-Request-Id`, to quote when reporting a problem.
    public let requestId: String?
    /// Which case of `code` it is, where the code has several: for `INVALID_PROVIDER_TOKEN` of a server
    /// nonce, `nonceRequired`, `nonceUnknown` or `nonceUsed` (sign in again with a new nonce).
    public let reason: String?

    /// Creates an error (the client builds these from responses; apps may in tests).
    public init(code: APIErrorCode, message: String, status: Int, retryAfter: Duration? = nil, requestId: String? = nil,
                reason: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
        self.requestId = requestId
        self.reason = reason
    }

    public var description: String { "\(code) (HTTP \(status)): \(message)" }
}
