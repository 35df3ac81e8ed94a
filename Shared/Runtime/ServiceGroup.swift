import Foundation
import Logging

/// Runs services side by side and stops them in reverse order when the calling task is cancelled
/// (``Entrypoint`` cancels it on SIGTERM or SIGINT) or when one of them fails (the small version of
/// swift-service-lifecycle's `ServiceGroup`).
public struct ServiceGroup: Sendable {
    private let services: [any Service]
    private let logger: Logger

    /// Creates a group; `services` start in order and stop in reverse order.
    public init(services: [any Service], logger: Logger) {
        self.services = services
        self.logger = logger
    }

    /// Runs every service until the calling task is cancelled or a service throws; then stops the
    /// rest, last started first. Rethrows the first failure.
    public func run() async throws {
        let events = AsyncStream<Event>.makeStream()

        var tasks: [Task<Void, Never>] = []
        let failure = FirstError()
        for (index, service) in services.enumerated() {
            tasks.append(Task {
                do {
                    try await service.run()
                    events.continuation.yield(.finished(index))
                } catch {
                    if !(error is CancellationError) { await failure.record(error) }
                    events.continuation.yield(.failed(index, String(describing: error)))
                }
            })
        }

        await withTaskCancellationHandler {
            for await event in events.stream {
                switch event {
                case .finished(let index):
                    logger.notice("service finished, shutting down", ["service": String(describing: type(of: services[index]))])
                case .failed(let index, let reason):
                    logger.error("service failed, shutting down",
                                 ["service": String(describing: type(of: services[index])), "error": reason])
                case .cancelled:
                    logger.notice("stopping")
                }
                break
            }
        } onCancel: {
            events.continuation.yield(.cancelled)
        }

        for task in tasks.reversed() {
            task.cancel()
            await task.value
        }
        if let error = await failure.error { throw error }
    }

    private enum Event: Sendable {
        case finished(Int)
        case failed(Int, String)
        case cancelled
    }

    private actor FirstError {
        var error: (any Error)?
        func record(_ error: any Error) { if self.error == nil { self.error = error } }
    }
}
