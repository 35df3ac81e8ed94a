/// A long-running part of a process (an HTTP server, a NATS responder, a consumer).
///
/// `run()` works until its task is cancelled, then cleans up and returns.
public protocol Service: Sendable {
    /// The name its ``ServiceGroup`` logs it by, such as `nats` or `auth.member.get`; by default its type's name.
    var name: String { get }

    /// Runs until cancelled; throws when the service cannot go on.
    func run() async throws

    /// Told once, when its group begins to stop and before any service is cancelled (a management server turns
    /// its readiness 503 there); by default nothing.
    func groupWillStop()
}

extension Service {
    public var name: String { String(describing: type(of: self)) }

    public func groupWillStop() {}
}

/// A service made from a closure, for small parts that need no type of their own.
public struct ClosureService: Service {
    public let name: String
    private let body: @Sendable () async throws -> Void

    /// Wraps `body` as a service logged as `name`.
    public init(_ name: String = "closure", _ body: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.body = body
    }

    public func run() async throws {
        try await body()
    }
}

extension Task where Success == Never, Failure == Never {
    /// Sleeps until the current task is cancelled.
    public static func sleepUntilCancelled() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}
