import Foundation
import Logging

/// Runs services side by side and stops them in reverse order on SIGTERM or SIGINT, or
/// when one of them fails (the small version of swift-service-lifecycle's `ServiceGroup`).
public struct ServiceGroup: Sendable {
    private let services: [any Service]
    private let logger: Logger

    /// Creates a group; `services` start in order and stop in reverse order.
    public init(services: [any Service], logger: Logger) {
        self.services = services
        self.logger = logger
    }

    /// Runs every service until a signal arrives, the calling task is cancelled, or a
    /// service throws; then stops the rest, last started first. Rethrows the first failure.
    public func run() async throws {
        let events = AsyncStream<Event>.makeStream()
        let signals = Signals.watch { signal in events.continuation.yield(.signal(signal)) }
        defer { signals.forEach { $0.cancel() } }

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
                case .signal(let number):
                    logger.notice("signal received, shutting down", ["signal": String(number)])
                case .finished(let index):
                    logger.notice("service finished, shutting down", ["service": String(describing: type(of: services[index]))])
                case .failed(let index, let reason):
                    logger.error("service failed, shutting down",
                                 ["service": String(describing: type(of: services[index])), "error": reason])
                case .cancelled:
                    break
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
        case signal(Int32)
        case finished(Int)
        case failed(Int, String)
        case cancelled
    }

    private actor FirstError {
        var error: (any Error)?
        func record(_ error: any Error) { if self.error == nil { self.error = error } }
    }
}

/// Process signals: blocked for every thread at start, then delivered through Dispatch.
public enum Signals {
    /// Blocks SIGTERM, SIGINT and SIGPIPE for the calling thread and every thread it starts later.
    /// Call first thing in `main`, before cnats or libmicrohttpd start threads of their own,
    /// so that no C thread is picked to take the signal.
    public static func blockTermination() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Calls `handler` for every SIGTERM and SIGINT until the returned sources are cancelled.
    static func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceSignal] {
        [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }
}
