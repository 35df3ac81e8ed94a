/// One HTTP request as the server received it: method, decoded path, query, headers and body.
public struct HTTPRequest: Sendable {
    /// The request method as sent (`GET`, `POST`).
    public let method: String
    /// The percent-decoded path, without the query string.
    public let path: String
    /// The request target exactly as sent: the path before any decoding, and the query string. A router that
    /// must refuse what `path` hides (`%72` for `r`, `%2f` for `/`) reads this.
    public let target: String
    /// The decoded query arguments; when a name repeats, the first value wins.
    public let query: [String: String]
    /// The headers, names lowercased; a repeated header's values are joined with `", "`.
    public let headers: [String: String]
    /// The body, empty when there was none or when it was larger than `maxBodySize`.
    public let body: [UInt8]
    /// True when the body exceeded `maxBodySize`, or its `Content-Length` said it would (the handler then runs before
    /// the body is read): `body` is then empty, the rest is discarded, and the handler should answer 413.
    public let bodyTooLarge: Bool
    /// The client's IP address as text (IPv4 or IPv6), empty when unknown.
    public let remoteAddress: String

    /// Creates a request; the server builds these, tests may too. `target` defaults to `path`.
    public init(method: String, path: String, target: String? = nil, query: [String: String] = [:], headers: [String: String] = [:],
                body: [UInt8] = [], bodyTooLarge: Bool = false, remoteAddress: String = "") {
        self.method = method
        self.path = path
        self.target = target ?? path
        self.query = query
        var lowercased: [String: String] = [:]
        lowercased.reserveCapacity(headers.count)
        for (name, value) in headers {
            lowercased[name.lowercased()] = value
        }
        self.headers = lowercased
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.remoteAddress = remoteAddress
    }

    /// Builds a request from headers whose names are already lowercased (the server's hot path).
    init(method: String, path: String, target: String, query: [String: String], lowercasedHeaders: [String: String],
         body: [UInt8], bodyTooLarge: Bool, remoteAddress: String) {
        self.method = method
        self.path = path
        self.target = target
        self.query = query
        self.headers = lowercasedHeaders
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.remoteAddress = remoteAddress
    }

    /// The value of header `name`, compared case-insensitively, or nil when absent.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
