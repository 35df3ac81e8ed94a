/// What the server keeps for one request between access-handler calls, referenced from MHD's `*con_cls`.
///
/// Only MHD's thread for the connection touches it (one call at a time), so it needs no lock and is not `Sendable`.
/// It is retained in `*con_cls` on the first call and released by the request-completed callback.
final class RequestContext {
    /// The body received so far (at most `maxBodySize` bytes).
    var body: [UInt8] = []
    /// Set when the body outgrew `maxBodySize`; the rest is read and discarded.
    var bodyTooLarge = false
    /// Set when the request went to the handler and the connection was suspended.
    var pending: PendingResponse?
}
