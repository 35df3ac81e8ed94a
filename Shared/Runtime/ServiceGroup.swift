import Logging
import Synchronization

/// Runs services side by side and stops them in reverse order when the calling task is cancelled
/// (``Entrypoint`` cancels it on SIGTERM or SIGINT) or when one of them fails (the small version of
/// swift-service-lifecycle's `ServiceGroup`).
///
/// A ``Prelude`` among them is replaced, once it is done, by the services it made, in its place in the
/// order: a process is one flat group of named services, whose start and stop the log lists by name.
///
/// Stopping begins, before any service is cancelled, with `onStopping` and each running service's
/// ``Service/groupWillStop()``: the management server's readiness turns 503 there, at once, though the
/// management port that answers it is the last service to stop. No process can forget to wire it.
public struct ServiceGroup: Sendable {
    private let services: [any Service]
    private let logger: Logger
    private let onStopping: @Sendable () -> Void

    /// Creates a group; `services` start in order and stop in reverse order. `onStopping` is called once,
    /// when the group begins to stop (a signal, a service that finished or failed), before anything is cancelled.
    public init(services: [any Service], logger: Logger, onStopping: @escaping @Sendable () -> Void = {}) {
        self.services = services
        self.logger = logger
        self.onStopping = onStopping
    }

    /// Runs every service until the calling task is cancelled or a service throws; then stops the
    /// rest, last started first. Rethrows the first failure.
    public func run() async throws {
        let events = AsyncStream<Event>.makeStream()
        let members = Members(logger: logger, events: events.continuation)
        members.start(services)

        // A cancelled task's stream iteration ends without the event: no event read means cancelled.
        let event = await withTaskCancellationHandler {
            for await event in events.stream { return event }
            return Event.cancelled
        } onCancel: {
            events.continuation.yield(.cancelled)
        }
        switch event {
        case .finished(let name):
            logger.notice("service finished, shutting down", ["service": name])
        case .failed(let name, let reason):
            logger.error("service failed, shutting down", ["service": name, "error": reason])
        case .cancelled:
            logger.notice("stopping")
        }

        onStopping()
        let running = members.stop()
        for member in running { member.service.groupWillStop() }
        for member in running.reversed() {
            member.task.cancel()
            await member.task.value
            logger.info("service stopped", ["service": member.name])
        }
        if let error = members.failure { throw error }
    }

    fileprivate enum Event: Sendable {
        case finished(String)
        case failed(String, String)
        case cancelled
    }

    /// The running services in the group's order, a prelude's services in its place once it is done.
    private final class Members: Sendable {
        struct Member {
            let id: Int
            let service: any Service
            let task: Task<Void, Never>
            var name: String { service.name }
        }

        private struct State {
            var members: [Member] = []
            var nextID = 0
            var stopping = false
            var failure: (any Error)?
        }

        private let state = Mutex(State())
        private let logger: Logger
        private let events: AsyncStream<Event>.Continuation

        init(logger: Logger, events: AsyncStream<Event>.Continuation) {
            self.logger = logger
            self.events = events
        }

        /// The first failure of a service, cancellation aside.
        var failure: (any Error)? { state.withLock { $0.failure } }

        /// Starts `services` at the end, or in place of the prelude `prelude`; nothing once the group stops.
        func start(_ services: [any Service], replacing prelude: Int? = nil) {
            state.withLock { state in
                let index = prelude.flatMap { id in state.members.firstIndex { $0.id == id } } ?? state.members.endIndex
                if prelude != nil { state.members.remove(at: index) }
                guard !state.stopping else { return }
                var started: [Member] = []
                for service in services {
                    let id = state.nextID
                    state.nextID += 1
                    logger.debug("service starting", ["service": service.name])
                    started.append(Member(id: id, service: service, task: Task { await self.run(service, id: id) }))
                }
                state.members.insert(contentsOf: started, at: index)
            }
        }

        /// From now on nothing starts; the services running, in the group's order.
        func stop() -> [Member] {
            state.withLock { state in
                state.stopping = true
                return state.members
            }
        }

        private func run(_ service: any Service, id: Int) async {
            do {
                if let prelude = service as? any Prelude {
                    let following = try await prelude.prepare()
                    logger.debug("prelude done", ["service": service.name])
                    start(following, replacing: id)
                    return
                }
                try await service.run()
                events.yield(.finished(service.name))
            } catch {
                if !(error is CancellationError) {
                    state.withLock { state in
                        if state.failure == nil { state.failure = error }
                    }
                }
                events.yield(.failed(service.name, String(describing: error)))
            }
        }
    }
}
