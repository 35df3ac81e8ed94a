import Synchronization

/// Whether this process can serve, for `/readyz`: every check it registered passes and it is not stopping.
///
/// It answers for this process alone, never for the services it calls: one sick rollout of a
/// downstream service must not take every caller out of its load balancer.
public final class Readiness: Sendable {
    /// One condition of being ready, such as "connected to NATS".
    public typealias Check = @Sendable () -> Bool

    private struct State {
        var checks: [(name: String, check: Check)] = []
        var started = false
        var stopping = false
    }

    private let state = Mutex(State())

    /// Not ready until ``started()``.
    public init() {}

    /// Adds a condition, named in `/readyz`'s answer while it fails.
    public func require(_ name: String, _ check: @escaping Check) {
        state.withLock { $0.checks.append((name, check)) }
    }

    /// The process has done its start-up (connected, migrated, subscribed): from now on the checks decide.
    public func started() {
        state.withLock { $0.started = true }
    }

    /// The process is stopping: not ready from now on, whatever the checks say.
    public func stopping() {
        state.withLock { $0.stopping = true }
    }

    /// What `/readyz` reports: ready, or the reasons it is not.
    public var report: (ready: Bool, failing: [String]) {
        let (checks, started, stopping) = state.withLock { ($0.checks, $0.started, $0.stopping) }
        if stopping { return (false, ["stopping"]) }
        if !started { return (false, ["starting"]) }
        let failing = checks.filter { !$0.check() }.map(\.name)
        return (failing.isEmpty, failing)
    }
}
