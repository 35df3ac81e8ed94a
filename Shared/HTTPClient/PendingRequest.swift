import Synchronization

/// The caller's side of one request: the request itself and the continuation that gets its answer.
///
/// Whoever comes first resumes the caller exactly once: the worker with the result, the caller's
/// cancellation handler, or shutdown. The others find the request finished and do nothing.
final class PendingRequest: Sendable {
    private enum Phase {
        case created
        case waiting(CheckedContinuation<HTTPClientResponse, any Error>)
        case finished
    }

    /// The request to send.
    let request: HTTPClientRequest
    private let phase = Mutex<Phase>(.created)

    init(_ request: HTTPClientRequest) {
        self.request = request
    }

    /// True once the caller has been answered (or cancelled): the worker need not start it.
    var isFinished: Bool {
        phase.withLock { phase in
            if case .finished = phase { return true }
            return false
        }
    }

    /// Stores the continuation; returns false (having resumed it with `.cancelled`) when the caller was cancelled first.
    func attach(_ continuation: CheckedContinuation<HTTPClientResponse, any Error>) -> Bool {
        let attached = phase.withLock { phase in
            guard case .created = phase else { return false }
            phase = .waiting(continuation)
            return true
        }
        if !attached {
            continuation.resume(throwing: HTTPClientError.cancelled)
        }
        return attached
    }

    /// Resumes the caller with `result` unless it was already resumed; returns whether this call resumed it.
    @discardableResult
    func finish(_ result: Result<HTTPClientResponse, HTTPClientError>) -> Bool {
        let continuation = phase.withLock { phase -> CheckedContinuation<HTTPClientResponse, any Error>? in
            defer { phase = .finished }
            guard case .waiting(let continuation) = phase else { return nil }
            return continuation
        }
        guard let continuation else { return false }
        continuation.resume(with: result.mapError { $0 })
        return true
    }
}
