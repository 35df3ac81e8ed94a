/// The answer to an `HTTPClientRequest`: status, headers of the final response, and body.
public struct HTTPClientResponse: Sendable {
    /// The HTTP status code (4xx and 5xx are answers, not errors).
    public let status: Int
    /// Response headers by lowercased name; repeated headers are joined with `", "`.
    public let headers: [String: String]
    /// The response body, at most `HTTPClient.Configuration.maxResponseSize` bytes (and at most the request's
    /// `maxResponseBodyBytes`, when it set them).
    public let body: [UInt8]
    /// True when the body is only the first bytes of a longer one: the request set `maxResponseBodyBytes` and the
    /// server sent more, so the transfer was stopped there.
    public let isTruncated: Bool

    /// Creates a response, for fakes in tests; `headers` keys must already be lowercased.
    public init(status: Int, headers: [String: String], body: [UInt8], isTruncated: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.isTruncated = isTruncated
    }

    /// The value of the header `name` (any case), or nil when the response has none.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
