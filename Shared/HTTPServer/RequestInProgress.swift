/// What the server keeps for one request between access-handler calls, referenced from MHD's `*con_cls`.
///
/// Only MHD's thread for the connection touches it (one call at a time), so it needs no lock and is not `Sendable`.
/// MHD's URI-log callback creates it, retained in `*con_cls`, as soon as the request line is read; the
/// request-completed callback releases it.
final class RequestInProgress {
    /// The request target exactly as the client sent it (before MHD decodes the path and splits off the query).
    let target: String
    /// Set by the first access-handler call, which MHD makes once the headers are read.
    var headersRead = false
    /// The body received so far (at most `maxBodySize` bytes).
    var body: [UInt8] = []
    /// Set when the body outgrew `maxBodySize`, or `Content-Length` announced that it would; the rest is discarded.
    var bodyTooLarge = false
    /// Set when the request went to the handler and the connection was suspended.
    var pending: PendingResponse?

    init(target: String) {
        self.target = target
    }
}
