import Synchronization

/// The meeting point between a suspended connection and the task running its handler.
///
/// The task stores the response here and then resumes the connection; MHD's thread takes it out on the next
/// access-handler call. When the server stops first, the response never arrives and the connection is closed.
final class PendingResponse: Sendable {
    /// The suspended connection.
    let connection: ConnectionHandle
    private let response = Mutex<HTTPResponse?>(nil)

    init(connection: ConnectionHandle) {
        self.connection = connection
    }

    /// Stores the handler's answer (before the connection is resumed).
    func fulfil(_ value: consuming HTTPResponse) {
        response.withLock { [value = consume value] slot in slot = value }
    }

    /// Takes the answer out, or nil when the handler has not answered (the server is stopping).
    func take() -> HTTPResponse? {
        response.withLock { slot in slot.take() }
    }
}
