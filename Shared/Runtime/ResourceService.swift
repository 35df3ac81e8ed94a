import Synchronization

/// A resource (a connection pool, a NATS connection) as a service of the group: `run()` opens it,
/// waiting as long as `open` waits (for the database, for NATS), holds it until cancelled and then
/// closes it, awaited. Listed before the services that use it, it closes after they stopped.
///
/// Other services get it from ``value``, which waits until it is open. Cancelling the group stops
/// the waiting and the opening alike, so a signal works in every state of the start.
public final class ResourceService<Value: Sendable>: Service {
    private enum State {
        case opening(next: Int, waiters: [Int: CheckedContinuation<Value, any Error>])
        case open(Value)
        case failed(any Error)
    }

    private let name: String
    private let open: @Sendable () async throws -> Value
    private let close: @Sendable (Value) async -> Void
    private let state = Mutex(State.opening(next: 0, waiters: [:]))

    /// A resource named `name` (for errors) made by `open` and released by `close`.
    public init(_ name: String, open: @escaping @Sendable () async throws -> Value, close: @escaping @Sendable (Value) async -> Void) {
        self.name = name
        self.open = open
        self.close = close
    }

    public func run() async throws {
        let value: Value
        do {
            value = try await open()
        } catch {
            settle(.failed(error))
            throw error
        }
        settle(.open(value))
        await Task.sleepUntilCancelled()
        await close(value)
    }

    /// The resource once open; throws what opening threw, or `CancellationError` when the calling
    /// task is cancelled first.
    public var value: Value {
        get async throws {
            let id = state.withLock { state -> Int in
                guard case .opening(let next, let waiters) = state else { return 0 }
                state = .opening(next: next + 1, waiters: waiters)
                return next
            }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    let result = state.withLock { state -> Result<Value, any Error>? in
                        switch state {
                        case .open(let value): return .success(value)
                        case .failed(let error): return .failure(error)
                        case .opening(let next, var waiters):
                            if Task.isCancelled { return .failure(CancellationError()) }
                            waiters[id] = continuation
                            state = .opening(next: next, waiters: waiters)
                            return nil
                        }
                    }
                    if let result { continuation.resume(with: result) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
                    guard case .opening(let next, var waiters) = state, let waiter = waiters.removeValue(forKey: id) else { return nil }
                    state = .opening(next: next, waiters: waiters)
                    return waiter
                }
                waiter?.resume(throwing: CancellationError())
            }
        }
    }

    private func settle(_ outcome: State) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard case .opening(_, let waiters) = state else { return [] }
            state = outcome
            return Array(waiters.values)
        }
        switch outcome {
        case .open(let value): waiters.forEach { $0.resume(returning: value) }
        case .failed(let error): waiters.forEach { $0.resume(throwing: error) }
        case .opening: break
        }
    }
}
