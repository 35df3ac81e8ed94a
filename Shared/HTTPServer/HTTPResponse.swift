/// The answer to one request: status, headers and body. The server adds `Content-Length` itself.
public struct HTTPResponse: Sendable {
    /// The status code (100...999; anything else is answered as 500).
    public var status: Int
    /// Header fields in order; `Content-Length` is computed by the server and must not be set here.
    public var headers: [(String, String)]
    /// The body bytes (not sent for `HEAD`).
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
