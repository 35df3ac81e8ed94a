import Logging

/// An asynchronous HTTP/1.1 and HTTP/2 client over libcurl, cheap enough for a call on every request.
///
/// One libcurl multi handle, driven by one thread the client owns, carries every request, and
/// keeps connections alive between them. Call `shutdown()` when done (dropping the client does it too).
public final class HTTPClient: Sendable {
    private let loop: TransferLoop

    /// Creates a client and starts its worker thread.
    public init(configuration: Configuration = .init(), logger: Logger) {
        loop = TransferLoop(configuration: configuration, logger: logger)
    }

    deinit {
        loop.stop()
    }

    /// Sends `request` and returns the response, whatever its status; throws `HTTPClientError` when there is none.
    ///
    /// Cancelling the calling task aborts the transfer at once and throws `.cancelled`.
    public func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        try request.validate()
        let pending = PendingRequest(request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if pending.attach(continuation) {
                    loop.submit(pending)
                }
            }
        } onCancel: {
            if pending.finish(.failure(.cancelled)) {
                loop.cancel(pending)
            }
        }
    }

    /// Stops the worker thread; requests in flight fail with `.cancelled`, and so do later ones. Idempotent.
    public func shutdown() {
        loop.stop()
    }
}
