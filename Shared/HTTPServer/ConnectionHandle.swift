/// An `MHD_Connection` pointer that a handler's task carries so it can resume the connection.
///
/// `@unchecked Sendable` is safe because the pointer is only dereferenced by libmicrohttpd, through
/// `MHD_resume_connection`, by whoever takes the connection out of the server's registry of suspended connections
/// (under the state lock, so exactly once). MHD never frees a suspended connection, and `stop()` waits for such
/// resumes to return before it stops the daemon. See `HTTPServer.complete(_:with:)` and `HTTPServer.stop()`.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
