import Logging

/// Work some services need done before they start (migrating a schema, loading keys, setting up a
/// stream), as an entry of a ``ServiceGroup``: once ``prepare()`` returns, the services it made take its
/// place in the group, so they stop in the group's reverse order with everything else.
///
/// It runs inside the group like any service: a signal cancels it while it waits, and a failure stops the group.
/// Services it made that the group, already stopping, never starts are dropped unrun: they must hold nothing
/// that needs closing before their `run()` (a pool or a connection is a ``ResourceService`` of the group).
public protocol Prelude: Service {
    /// Does the work, waiting as long as it must, and returns the services that follow it; throws
    /// `CancellationError` when cancelled first.
    func prepare() async throws -> [any Service]

    /// What logs the group it runs its services in when run outside a group; by default a logger labelled with its name.
    var logger: Logger { get }
}

extension Prelude {
    public var logger: Logger { Logger(label: name) }

    /// Outside a group: prepares, then runs the services that follow in a group of their own.
    public func run() async throws {
        let services = try await prepare()
        try Task.checkCancellation()
        try await ServiceGroup(services: services, logger: logger).run()
    }
}

/// A prelude made from a closure that does the work and returns the services that follow it.
public struct ClosurePrelude: Prelude {
    public let name: String
    private let body: @Sendable () async throws -> [any Service]

    /// Wraps `body` as a prelude logged as `name`.
    public init(_ name: String, _ body: @escaping @Sendable () async throws -> [any Service]) {
        self.name = name
        self.body = body
    }

    public func prepare() async throws -> [any Service] {
        try await body()
    }
}
