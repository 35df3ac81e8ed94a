import Contracts
import Logging
import Messaging
import Synchronization

/// Stands in for the services behind the gateway's handler, in process: answers each endpoint (by subject)
/// as the test told it, with a reply or a failure, and records every request with the request ID it
/// carried. An endpoint it was told nothing about has no responder: `SERVICE_UNAVAILABLE`, as over NATS.
/// The gateway's tests stand it behind the handler, the member-service's behind its use cases.
public final class StubServices: ServiceCalling {
    /// One request the gateway sent.
    public struct Call: Sendable {
        /// The request as sent.
        public let request: any Sendable
        /// The request ID the call carried (what ``ServiceClient`` sends as `X-Request-Id`).
        public let requestID: String?
        /// How often ``ServiceClient`` would send it again after no answer (0 for what is not idempotent).
        public let retries: Int
    }

    private struct State {
        // Results, not typed-throwing closures: storing one of those crashes the 6.3 compiler.
        var answers: [String: @Sendable (any Sendable) -> Result<any Sendable, ServiceFailure>] = [:]
        var calls: [String: [Call]] = [:]
    }

    private let state = Mutex(State())

    /// Always connected: a test that wants no services gives the handler none.
    public var isConnected: Bool { true }

    /// A stub that answers nothing yet.
    public init() {}

    /// Answers `endpoint` with what `reply` makes of each request, or the failure it throws.
    public func answer<Request, Reply>(_ endpoint: Endpoint<Request, Reply>,
                                _ reply: @escaping @Sendable (Request) throws(ServiceFailure) -> Reply) {
        let answer: @Sendable (any Sendable) -> Result<any Sendable, ServiceFailure> = { request in
            do throws(ServiceFailure) {
                return .success(try reply(request as! Request))
            } catch {
                return .failure(error)
            }
        }
        state.withLock { $0.answers[endpoint.subject] = answer }
    }

    /// Answers every request to `endpoint` with `reply`.
    public func answer<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, with reply: Reply) {
        answer(endpoint) { _ in reply }
    }

    /// Refuses every request to `endpoint` with `failure`.
    public func refuse<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, with failure: ServiceFailure) {
        answer(endpoint) { _ throws(ServiceFailure) -> Reply in throw failure }
    }

    /// The requests sent to `endpoint`, in order.
    public func requests<Request, Reply>(to endpoint: Endpoint<Request, Reply>) -> [Request] {
        calls(to: endpoint).compactMap { $0.request as? Request }
    }

    /// The calls made to `endpoint`, in order.
    public func calls<Request, Reply>(to endpoint: Endpoint<Request, Reply>) -> [Call] {
        state.withLock { $0.calls[endpoint.subject] ?? [] }
    }

    /// Records the call, then answers it as told (`SERVICE_UNAVAILABLE` when told nothing).
    public func call<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ request: Request,
                              timeout: Duration, retries: Int) async throws(ServiceFailure) -> Reply {
        let answer = state.withLock { state in
            state.calls[endpoint.subject, default: []].append(Call(request: request, requestID: RequestID.current?.value, retries: retries))
            return state.answers[endpoint.subject]
        }
        guard let answer else { throw ServiceFailure.unavailable }
        guard let reply = try answer(request).get() as? Reply else { throw ServiceFailure.internal }
        return reply
    }
}
