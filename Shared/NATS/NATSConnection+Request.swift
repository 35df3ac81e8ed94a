import CNats

extension NATSConnection {
    /// Sends a request and waits for its reply.
    ///
    /// Throws ``NATSError/noResponders`` at once when nobody subscribes to `subject`, ``NATSError/timeout``
    /// when no reply comes within `timeout`, ``NATSError/notConnected`` while the connection is down (nothing
    /// was sent), ``NATSError/connectionLost`` when it went down after the request was handed over, and
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
                    // A publish during a reconnect lands in cnats's buffer, sent once connected again; fail
                    // fast rather than at the timeout, as a request that may yet be handled.
                    if !isConnected {
                        multiplexer.complete(token, with: .failure(NATSError.connectionLost))
                    }
                } catch {
                    multiplexer.complete(token, with: .failure(error))
                }
            }
        } onCancel: {
            multiplexer.complete(token, with: .failure(CancellationError()))
        }
    }

    /// One request of ``requestAll(_:timeout:)``.
    public struct Request: Sendable {
        /// Where the request goes (no wildcards).
        public var subject: String
        /// The request's body.
        public var payload: [UInt8]
        /// NATS headers sent with it.
        public var headers: [String: String]

        /// A request of `payload` to `subject`, with `headers`.
        public init(_ subject: String, _ payload: [UInt8], headers: [String: String] = [:]) {
            self.subject = subject
            self.payload = payload
            self.headers = headers
        }
    }

    /// Sends `requests` in their order, then waits for all their replies together: one suspension for
    /// the lot, however many there are. Returns each request's reply or failure, in the same order,
    /// with the failures of ``request(_:_:headers:timeout:)`` (each request has `timeout`; cancelling
    /// the calling task fails those still waiting with `CancellationError`).
    public func requestAll(_ requests: [Request], timeout: Duration) async -> [Result<NATSMessage, any Error>] {
        guard !requests.isEmpty else { return [] }
        let multiplexer = multiplexer
        let tokens = requests.map { _ in multiplexer.makeToken() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let batch = ReplyBatch(count: requests.count, continuation)
                for (index, token) in tokens.enumerated() {
                    multiplexer.register(token, timeout: timeout, .batch(batch, index: index))
                }
                if Task.isCancelled || !isConnected {
                    let failure: any Error = Task.isCancelled ? CancellationError()
                        : events.isClosed ? NATSError.connectionClosed : NATSError.notConnected
                    for token in tokens { multiplexer.complete(token, with: .failure(failure)) }
                    return
                }
                for (request, token) in zip(requests, tokens) {
                    do {
                        try Subject.validate(request.subject, wildcards: false)
                        try multiplexer.withReplySubject(token) { reply in
                            try publish(request.subject, reply: reply, request.payload, headers: request.headers)
                        }
                    } catch {
                        multiplexer.complete(token, with: .failure(error))
                    }
                }
                // Publishes during a reconnect land in cnats's buffer; fail fast rather than at the timeout.
                if !isConnected {
                    for token in tokens { multiplexer.complete(token, with: .failure(NATSError.connectionLost)) }
                }
            }
        } onCancel: {
            for token in tokens { multiplexer.complete(token, with: .failure(CancellationError())) }
        }
    }
}
