import CNats

extension NATSConnection {
    /// Sends a request and waits for its reply.
    ///
    /// Throws ``NATSError/noResponders`` at once when nobody subscribes to `subject`, ``NATSError/timeout``
    /// when no reply comes within `timeout`, ``NATSError/notConnected`` while the connection is down, and
    /// `CancellationError` when the calling task is cancelled. No thread waits per request: replies arrive
    /// on one shared inbox subscription.
    public func request(_ subject: String, _ payload: [UInt8], headers: [String: String] = [:],
                        timeout: Duration) async throws -> NATSMessage {
        try Subject.validate(subject, wildcards: false)
        guard isConnected else {
            throw events.isClosed ? NATSError.connectionClosed : NATSError.notConnected
        }
        let multiplexer = multiplexer
        let token = multiplexer.makeToken()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                multiplexer.register(token, timeout: timeout, continuation)
                // A cancellation that came before `register` found nothing to cancel; catch it here.
                if Task.isCancelled {
                    multiplexer.complete(token, with: .failure(CancellationError()))
                    return
                }
                do {
                    try multiplexer.withReplySubject(token) { reply in
                        try publish(subject, reply: reply, payload, headers: headers)
                    }
                    // A publish during a reconnect lands in cnats's buffer; fail fast rather than at the timeout.
                    if !isConnected {
                        multiplexer.complete(token, with: .failure(NATSError.notConnected))
                    }
                } catch {
                    multiplexer.complete(token, with: .failure(error))
                }
            }
        } onCancel: {
            multiplexer.complete(token, with: .failure(CancellationError()))
        }
    }
}
