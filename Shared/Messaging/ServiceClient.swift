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
    /// With it, every reply is sealed to this process and opened here (``ReplySeal``).
    private let sealing: ReplySeal?

    /// Creates a client on `connection`; with `metrics`, each call's latency and failures are counted by subject.
    ///
    /// With `sealing`, each request asks for its reply to be sealed to this process, and a reply that is not
    /// so sealed is refused: whoever else reads this identity's inbox learns nothing from it.
    public init(connection: NATSConnection, logger: Logger, metrics: MetricsRegistry? = nil, sealing: ReplySeal? = nil) {
        self.connection = connection
        self.logger = logger
        self.metrics = metrics
        self.sealing = sealing
        metrics?.describeHistogram("nats_request_duration_seconds", "Time for a service to answer over NATS, by subject.")
        metrics?.describeCounter("nats_request_errors_total", "NATS calls that failed (no responders, timeout, ...), by subject and error.")
        metrics?.describeCounter("nats_request_retries_total", "NATS calls sent again (no responder yet, connection down or lost, timeout), by subject and error.")
    }

    /// How long a call keeps asking while nobody can take it: the connection is down, or no replica
    /// subscribes. A NATS cluster that loses a node moves the clients that were on it to the others
    /// within a second or two; a call made meanwhile waits for that rather than failing. Capped by the
    /// call's own timeout.
    public static let failoverPatience = CallRetryPolicy.failoverPatience

    /// Sends `request` to `endpoint` and returns its reply, or throws the service's failure.
    ///
    /// The whole call, every attempt and pause included, takes at most `timeout` for each attempt it
    /// may make (`timeout × (retries + 1)`, `retries` at most 16). A call that reached nobody (no
    /// responder, or the connection down before it was sent) is sent again, whatever the endpoint,
    /// after a short pause growing from about 25 to 400 ms, for up to ``failoverPatience``. With
    /// `retries` above zero, a call that may have been handled but got no reply (it timed out, or the
    /// connection went down while it waited) is sent again too, once the connection is back, with the
    /// patience counted anew (only for idempotent endpoints: a replica or a NATS node died
    /// mid-request); never one with `retries` zero.
    public func call<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ request: Request,
                                     timeout: Duration, retries: Int = 0) async throws(ServiceFailure) -> Reply {
        let payload: [UInt8]
        do {
            payload = try MessageCoding.encode(request)
        } catch {
            logger.error("request encoding failed", ["nats.subject": endpoint.subject])
            throw .internal
        }
        let sealed = sealing?.requestHeaders() ?? [:]
        let message = try await send(endpoint.subject, payload, timeout: timeout, retries: retries, headers: sealed)
        let reply: ServiceReply<Reply>
        do {
            let plaintext = try sealing.map { try $0.open(message, headers: sealed) } ?? message.payload
            reply = try MessageCoding.decode(ServiceReply<Reply>.self, from: plaintext)
        } catch {
            logger.error("reply decoding failed", ["nats.subject": endpoint.subject])
            throw ServiceFailure.internal
        }
        return try reply.get()
    }

    /// Sends an encoded request to `subject` and returns the reply as it came, under the same policy as
    /// ``call(_:_:timeout:retries:)``: a chain's hop uses it to hand a request on and pass the answer back
    /// unread. ``CallRetryPolicy`` decides after each failed attempt; this loop sends, pauses and throws.
    public func send(_ subject: String, _ payload: [UInt8], timeout: Duration, retries: Int = 0,
                     headers extra: [String: String] = [:]) async throws(ServiceFailure) -> NATSMessage {
        let firstStarted = ContinuousClock.now
        let policy = try CallRetryPolicy(timeout: timeout, retries: retries, start: firstStarted, callerGivesUp: RequestDeadline.current)
        var state = policy.sentAnew(at: firstStarted)
        var headers = extra
        if let id = RequestID.current { headers[RequestID.header] = id.value }
        while true {
            let started = ContinuousClock.now
            let error: NATSError
            do {
                let wait = policy.attemptTimeout(at: started)
                headers[RequestDeadline.header] = RequestDeadline.value(wait)
                let message = try await connection.request(subject, payload, headers: headers, timeout: wait)
                if let metrics {
                    let elapsed = ContinuousClock.now - started
                    metrics.observe("nats_request_duration_seconds", ["subject": subject], elapsed.timeInterval)
                }
                return message
            } catch let failed as NATSError {
                error = failed
            } catch {
                throw Task.isCancelled ? Self.cancelled : .internal
            }
            let labels = ["subject": subject, "error": error.code.description]
            let fields = ["nats.subject": subject, "nats.error": error.code.description]
            var decision = policy.afterFailure(error, state, now: .now, cancelled: Task.isCancelled)
            if case .sendAgain(let pause, let next) = decision, pause > .zero {
                logger.debug("waiting to call again", fields)
                try? await Task.sleep(for: pause)
                decision = policy.afterPause(error, next, now: .now, cancelled: Task.isCancelled)
            } else if case .sendAgain = decision {
                logger.warning("retrying call", fields)
            }
            switch decision {
            case .sendAgain(_, let next):
                metrics?.increment("nats_request_retries_total", labels)
                state = next
            case .giveUp(let failure):
                metrics?.increment("nats_request_errors_total", labels)
                logger.warning("call failed", fields)
                throw failure
            case .cancelled:
                throw Self.cancelled
            }
        }
    }

    /// What a call cancelled by its caller throws.
    static let cancelled = ServiceFailure(.timeout, "The request was cancelled.")
}
