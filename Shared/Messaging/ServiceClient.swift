import Contracts
import JSON
import Logging
import Metrics
import NATS
import Runtime

/// Calls other services over NATS with typed endpoints, turning transport failures into the
/// service failures the gateway maps to HTTP (no responders → 503, timeout → 504). A call made while a
/// request is handled (``RequestID/current``) carries that request's ID in the `X-Request-Id` header.
public struct ServiceClient: Sendable {
    /// The connection requests go out on.
    public let connection: NATSConnection
    private let logger: Logger
    private let metrics: MetricsRegistry?

    /// Creates a client on `connection`; with `metrics`, each call's latency and failures are counted by subject.
    public init(connection: NATSConnection, logger: Logger, metrics: MetricsRegistry? = nil) {
        self.connection = connection
        self.logger = logger
        self.metrics = metrics
        metrics?.describeHistogram("nats_request_duration_seconds", "Time for a service to answer over NATS, by subject.")
        metrics?.describeCounter("nats_request_errors_total", "NATS calls that failed (no responders, timeout, ...), by subject and error.")
    }

    /// Sends `request` to `endpoint` and returns its reply, or throws the service's failure.
    ///
    /// With `retries` above zero, a call that found no responder or timed out is sent again
    /// (only for idempotent endpoints: a replica that died mid-request is replaced by another).
    public func call<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ request: Request,
                                     timeout: Duration, retries: Int = 0) async throws(ServiceFailure) -> Reply {
        let payload: [UInt8]
        do {
            payload = try MessageCoding.encode(request)
        } catch {
            logger.error("request encoding failed", ["nats.subject": endpoint.subject])
            throw .internal
        }
        let headers = RequestID.current.map { [RequestID.header: $0.value] } ?? [:]
        var attempt = 0
        while true {
            let started = ContinuousClock.now
            do {
                let message = try await connection.request(endpoint.subject, payload, headers: headers, timeout: timeout)
                if let metrics {
                    let elapsed = ContinuousClock.now - started
                    metrics.observe("nats_request_duration_seconds", ["subject": endpoint.subject], elapsed.timeInterval)
                }
                let reply: ServiceReply<Reply>
                do {
                    reply = try MessageCoding.decode(ServiceReply<Reply>.self, from: message.payload)
                } catch {
                    logger.error("reply decoding failed", ["nats.subject": endpoint.subject])
                    throw ServiceFailure.internal
                }
                return try reply.get()
            } catch let failure as ServiceFailure {
                throw failure
            } catch let error as NATSError {
                let failure = Self.failure(for: error)
                metrics?.increment("nats_request_errors_total", ["subject": endpoint.subject, "error": error.code.description])
                if attempt < retries, failure.code == .serviceUnavailable || failure.code == .timeout, !Task.isCancelled {
                    attempt += 1
                    logger.warning("retrying call", ["nats.subject": endpoint.subject, "nats.error": error.code.description])
                    continue
                }
                logger.warning("call failed", ["nats.subject": endpoint.subject, "nats.error": error.code.description])
                throw failure
            } catch {
                throw Task.isCancelled ? ServiceFailure(.timeout, "The request was cancelled.") : .internal
            }
        }
    }

    static func failure(for error: NATSError) -> ServiceFailure {
        switch error {
        case .timeout:
            ServiceFailure(.timeout, "A service did not answer in time; try again.")
        default:
            .unavailable
        }
    }
}
