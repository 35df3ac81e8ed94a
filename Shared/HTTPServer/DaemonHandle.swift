/// An `MHD_Daemon` pointer kept in the server's state.
///
/// `@unchecked Sendable` is safe because MHD's daemon functions are thread-safe, and the pointer is taken out of the
/// state (under its lock) exactly once, by `stop()`, before `MHD_stop_daemon` frees it.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
