import Synchronization

/// The replies of several requests sent together, waited for by one continuation: it resumes once every
/// place holds its reply or its failure, with all of them in the order the requests were sent.
final class ReplyBatch: Sendable {
    private struct State {
        var results: [Result<NATSMessage, any Error>?]
        var remaining: Int
    }

    private let state: Mutex<State>
    private let continuation: CheckedContinuation<[Result<NATSMessage, any Error>], Never>

    /// A batch of `count` places (at least one) that resumes `continuation` once all are filled.
    init(count: Int, _ continuation: CheckedContinuation<[Result<NATSMessage, any Error>], Never>) {
        precondition(count > 0, "a reply batch has at least one request")
        state = Mutex(State(results: Array(repeating: nil, count: count), remaining: count))
        self.continuation = continuation
    }

    /// Fills place `index` unless it holds a result already; the last place filled resumes the waiter.
    func fill(_ index: Int, with result: Result<NATSMessage, any Error>) {
        let complete = state.withLock { state -> [Result<NATSMessage, any Error>]? in
            if state.results[index] != nil { return nil }
            state.results[index] = result
            state.remaining -= 1
            return state.remaining == 0 ? state.results.map { $0! } : nil
        }
        if let complete { continuation.resume(returning: complete) }
    }
}
