/// One outbound HTTP request: method, absolute `http`/`https` URL, headers, optional body and a deadline.
public struct HTTPClientRequest: Sendable {
    /// The HTTP method, such as `GET` or `POST`.
    public var method: String
    /// The absolute URL; only the `http` and `https` schemes are allowed.
    public var url: String
    /// Request headers in order; a name may appear more than once.
    public var headers: [(String, String)]
    /// The request body, sent with a `Content-Length` (and no `Content-Type` unless a header sets one); nil sends none.
    public var body: [UInt8]?
    /// The whole-request deadline (connecting, sending and receiving); it also bounds connecting alone.
    public var timeout: Duration
    /// When set, at most this many bytes of the response body are read: past them the transfer stops and the
    /// response is returned with its status, headers and first bytes, `isTruncated` set, instead of failing with
    /// `.responseTooLarge`. The body is also cut where the whole response reaches `Configuration.maxResponseSize`;
    /// headers past it still fail. Nil (the default) reads the whole body or fails. Must not be negative.
    public var maxResponseBodyBytes: Int?

    /// Creates a request; the defaults make a `GET` with no headers, a five-second deadline and the whole response body.
    public init(url: String, method: String = "GET", headers: [(String, String)] = [], body: [UInt8]? = nil,
                timeout: Duration = .seconds(5), maxResponseBodyBytes: Int? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBodyBytes = maxResponseBodyBytes
    }
}
