import Collections

/// A resource (a connection pool, a NATS connection) as a service of the group: `run()` opens it,
/// waiting as long as `open` waits (for the database, for NATS), holds it until cancelled and then
/// closes it, awaited. Listed before the services that use it, it closes after they stopped.
///
/// Other services get it from ``value``, which waits until it is open. Cancelling the group stops
/// the waiting and the opening alike, so a signal works in every state of the start.
public final class ResourceService<Value: Sendable>: Service {
    /// The resource's name, such as `postgres` or `nats`.
    public let name: String
    private let open: @Sendable () async throws -> Value
    private let close: @Sendable (Value) async -> Void
    private let opened = Promise<Value>()

    /// A resource named `name` (for the group's log) made by `open` and released by `close`.
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
            opened.settle(.failure(error))
            throw error
        }
        opened.settle(.success(value))
        await Task.sleepUntilCancelled()
        await close(value)
    }

    /// The resource once open; throws what opening threw, or `CancellationError` when the calling
    /// task is cancelled first.
    public var value: Value {
        get async throws {
            guard let result = await opened.settledUnlessCancelled() else { throw CancellationError() }
            return try result.get()
        }
    }
}
