/// The answer to an `HTTPClientRequest`: status, headers of the final response, and body.
public struct HTTPClientResponse: Sendable {
    /// The HTTP status code (4xx and 5xx are answers, not errors).
    public let status: Int
    /// Response headers by lowercased name; repeated headers are joined with `", "`.
    public let headers: [String: String]
    /// The response body, at most `HTTPClient.Configuration.maxResponseSize` bytes.
    public let body: [UInt8]

    /// Creates a response, for fakes in tests; `headers` keys must already be lowercased.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the header `name` (any case), or nil when the response has none.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
