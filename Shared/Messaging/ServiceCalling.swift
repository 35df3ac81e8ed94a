import Contracts

/// Calls to other services by typed endpoint, the part of ``ServiceClient`` a caller's request handling
/// needs: the gateway holds one of these, so that its tests can answer in the services' place.
/// Subscribing and other connection-level work stays on ``ServiceClient`` and its `connection`.
public protocol ServiceCalling: Sendable {
    /// Whether calls can go out now: the connection is up.
    var isConnected: Bool { get }

    /// Sends `request` to `endpoint` and returns its reply, or throws the service's failure (no responder:
    /// `SERVICE_UNAVAILABLE`, no answer in `timeout`: `TIMEOUT`). A call that reached nobody is sent again
    /// for a few seconds (a failover); with `retries` above zero, so is a call that may have been handled
    /// but got no reply (only for idempotent endpoints). ``ServiceClient/call(_:_:timeout:retries:)`` says how.
    func call<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ request: Request,
                              timeout: Duration, retries: Int) async throws(ServiceFailure) -> Reply
}

extension ServiceClient: ServiceCalling {
    /// Whether the NATS connection is up.
    public var isConnected: Bool {
        connection.isConnected
    }
}
